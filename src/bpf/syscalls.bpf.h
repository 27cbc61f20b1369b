/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system call layer: the numbers of the traced calls (set by the
 * recorder from src/trace/syscalls.c for the running architecture; the
 * defaults match nothing), the process filter (-p, the command and its
 * children), and the file behind a descriptor.
 */
#ifndef IOTRAIL_SYSCALLS_BPF_H
#define IOTRAIL_SYSCALLS_BPF_H

/* Process filter: tgid -> 1. Children are added by the fork hook below. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/* by kind (src/trace/syscalls.h), set by the recorder (src/record/load.c) */
const volatile __u32 cfg_nr_read = ~0u, cfg_nr_write = ~0u, cfg_nr_pread64 = ~0u,
		     cfg_nr_pwrite64 = ~0u, cfg_nr_readv = ~0u, cfg_nr_writev = ~0u,
		     cfg_nr_preadv = ~0u, cfg_nr_pwritev = ~0u, cfg_nr_fsync = ~0u,
		     cfg_nr_fdatasync = ~0u, cfg_nr_io_submit = ~0u,
		     cfg_nr_io_uring_enter = ~0u, cfg_nr_preadv2 = ~0u,
		     cfg_nr_pwritev2 = ~0u, cfg_nr_sendfile = ~0u, cfg_nr_splice = ~0u,
		     cfg_nr_copy_file_range = ~0u;

/* 0..10 in the order of IOT_AGG_SYSCALL's kinds; the rest (not kept by
 * --aggregate, whose histograms stop at 10) 11 */
static __always_inline __u32 syscall_kind(long id)
{
	return id == cfg_nr_read	? 0
	       : id == cfg_nr_write	? 1
	       : id == cfg_nr_pread64	? 2
	       : id == cfg_nr_pwrite64	? 3
	       : id == cfg_nr_readv	? 4
	       : id == cfg_nr_writev	? 5
	       : id == cfg_nr_preadv	? 6
	       : id == cfg_nr_pwritev	? 7
	       : id == cfg_nr_fsync	? 8
	       : id == cfg_nr_fdatasync ? 9
	       : id == cfg_nr_io_submit ? 10
					: 11; /* not aggregated: past IOT_AGG_SYSCALLS */
}

/* the calls that submit asynchronous I/O: their first argument is no
 * file's descriptor (io_submit: the context; io_uring_enter: the ring's) */
static __always_inline bool async_submit(long id)
{
	return id == cfg_nr_io_submit || id == cfg_nr_io_uring_enter;
}

/* What a call does, for record --flow's op filter (IOT_FLOW_OP_*): the
 * submitting calls (io_submit, io_uring_enter) may do any. */
static __always_inline __u32 syscall_op(long id)
{
	if (id == cfg_nr_read || id == cfg_nr_pread64 || id == cfg_nr_readv ||
	    id == cfg_nr_preadv || id == cfg_nr_preadv2 || id == cfg_nr_sendfile)
		return IOT_FLOW_OP_READ;
	if (id == cfg_nr_write || id == cfg_nr_pwrite64 || id == cfg_nr_writev ||
	    id == cfg_nr_pwritev || id == cfg_nr_pwritev2)
		return IOT_FLOW_OP_WRITE;
	if (id == cfg_nr_fsync || id == cfg_nr_fdatasync)
		return IOT_FLOW_OP_SYNC;
	/* splice and copy_file_range read one file and write another */
	return IOT_FLOW_OP_READ | IOT_FLOW_OP_WRITE;
}

static __always_inline bool traced_syscall(long id)
{
	return id == cfg_nr_read || id == cfg_nr_write || id == cfg_nr_pread64 ||
	       id == cfg_nr_pwrite64 || id == cfg_nr_readv || id == cfg_nr_writev ||
	       id == cfg_nr_preadv || id == cfg_nr_pwritev || id == cfg_nr_fsync ||
	       id == cfg_nr_fdatasync || id == cfg_nr_io_submit ||
	       id == cfg_nr_io_uring_enter || id == cfg_nr_preadv2 ||
	       id == cfg_nr_pwritev2 || id == cfg_nr_sendfile || id == cfg_nr_splice ||
	       id == cfg_nr_copy_file_range;
}

/* The last answer of the process filter on this CPU: a CPU that keeps
 * running one process (the usual case under I/O load) skips the hash.
 * gen is bumped by the fork hook so a cached "no" cannot outlive a child
 * being added. */
struct pid_cache {
	__u32 tgid;
	__u32 wanted;
	__u64 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pid_cache);
} pid_cache SEC(".maps");

__u64 pids_gen = 1; /* .bss: bumped whenever "pids" grows */

/* Whether the process tgid is traced (the filter: -p, the command and its
 * children, or everyone but the recorder). */
static __always_inline bool tgid_wanted(__u32 tgid)
{
	__u32 zero = 0;
	struct pid_cache *c;
	bool wanted;

	if (tgid == cfg_self_tgid)
		return false;
	if (!cfg_filter_pids)
		return true;
	c = bpf_map_lookup_elem(&pid_cache, &zero);
	if (c && c->tgid == tgid && c->gen == pids_gen)
		return c->wanted;
	wanted = bpf_map_lookup_elem(&pids, &tgid) != NULL;
	if (c) {
		c->tgid = tgid;
		c->wanted = wanted;
		c->gen = pids_gen;
	}
	return wanted;
}

static __always_inline bool task_wanted(void)
{
	return tgid_wanted(bpf_get_current_pid_tgid() >> 32);
}

/* The file behind fd, with its position, inode number and device. The
 * tp_btf build walks task->files with plain loads, reads the fd array's
 * slot as a number (KNUM) and casts it to a file with bpf_rdonly_cast();
 * the raw_tp build reads everything through probe reads. */
#ifdef IOT_TP_BTF
#define SYSARG(regs, n) PT_REGS_PARM##n##_SYSCALL(regs)
#else
#define SYSARG(regs, n) PT_REGS_PARM##n##_CORE_SYSCALL(regs)
#endif

/* the sixth argument (libbpf has macros for five): preadv2's flags */
#if defined(__TARGET_ARCH_x86)
#define SYSARG6(regs) BPF_CORE_READ(regs, r9)
#elif defined(__TARGET_ARCH_arm64)
#define SYSARG6(regs) BPF_CORE_READ(regs, regs[5])
#else
#define SYSARG6(regs) 0
#endif

struct file_info {
	__u64 pos, ino;
	__u32 dev, mode;
	bool found;
};

static __always_inline void fd_file(unsigned int fd, struct file_info *fi)
{
	struct file **fds, *slot = NULL;
#ifdef IOT_TP_BTF
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	struct file *f;

	if (fd >= fdt->max_fds)
		return;
	fds = fdt->fd;
	slot = (struct file *)KNUM(&fds[fd]);
	if (!slot)
		return;
	f = bpf_rdonly_cast(slot, bpf_core_type_id_kernel(struct file));
	fi->pos = f->f_pos;
	fi->ino = f->f_inode->i_ino;
	fi->dev = f->f_inode->i_sb->s_dev;
	fi->mode = f->f_inode->i_mode;
#else
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	if (fd >= BPF_CORE_READ(task, files, fdt, max_fds))
		return;
	fds = BPF_CORE_READ(task, files, fdt, fd);
	if (!fds || bpf_probe_read_kernel(&slot, sizeof(slot), &fds[fd]) || !slot)
		return;
	fi->pos = BPF_CORE_READ(slot, f_pos);
	fi->ino = BPF_CORE_READ(slot, f_inode, i_ino);
	fi->dev = BPF_CORE_READ(slot, f_inode, i_sb, s_dev);
	fi->mode = BPF_CORE_READ(slot, f_inode, i_mode);
#endif
	fi->found = true;
}

#endif /* IOTRAIL_SYSCALLS_BPF_H */
