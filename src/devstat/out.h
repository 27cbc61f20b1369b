/* SPDX-License-Identifier: GPL-2.0 */
/* `iotrail stat`'s outputs: sysstat's iostat text columns and its JSON
 * layout (-o JSON), field for field. */
#ifndef IOTRAIL_DEVSTAT_OUT_H
#define IOTRAIL_DEVSTAT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "devstat.h"

struct devstat_out {
	FILE *f;
	bool ext;  /* -x */
	bool json; /* -o JSON */
	unsigned int reports, devs_in_report, traced_in_report;
};

/* The first line (text) or the JSON up to the statistics array. */
void devstat_out_begin(struct devstat_out *o);
void devstat_out_report_begin(struct devstat_out *o);
void devstat_out_dev(struct devstat_out *o, const char *name,
		     const struct devstat_rates *r);
/* With `--trace`, what the trace counted for the device over the same
 * interval: text prints it after the report's table (devstat_out_trace,
 * once per device), JSON inside the device's object (pass it to
 * devstat_out_dev_trace instead of devstat_out_dev). */
void devstat_out_dev_trace(struct devstat_out *o, const char *name,
			   const struct devstat_rates *r,
			   const struct devstat_trace_rates *t);
void devstat_out_trace(struct devstat_out *o, const char *name,
		       const struct devstat_rates *r,
		       const struct devstat_trace_rates *t);
void devstat_out_report_end(struct devstat_out *o);
void devstat_out_end(struct devstat_out *o);

#endif
