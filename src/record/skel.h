/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two builds of the BPF programs. Both skeletons are generated with the
 * name iotrail_bpf from the same source, so their structs are identical and
 * every other skeleton call (load, attach, destroy) serves both; only the
 * embedded object differs, hence one open function each, in its own file.
 */
#ifndef IOTRAIL_RECORD_SKEL_H
#define IOTRAIL_RECORD_SKEL_H

struct iotrail_bpf;

struct iotrail_bpf *skel_open_btf(void); /* tp_btf: typed, plain loads */
struct iotrail_bpf *skel_open_raw(void); /* raw_tp: probe reads */

#endif
