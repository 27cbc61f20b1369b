// SPDX-License-Identifier: GPL-2.0
#include "cause.h"

#include <stdio.h>
#include <string.h>

static const char *const causes[IOT_CAUSE_MAX] = {
    [IOT_CAUSE_OTHER] = "other",       [IOT_CAUSE_DIRECT] = "direct",
    [IOT_CAUSE_READ] = "read",	       [IOT_CAUSE_READAHEAD] = "readahead",
    [IOT_CAUSE_FAULT] = "fault",       [IOT_CAUSE_WRITEBACK] = "writeback",
    [IOT_CAUSE_JOURNAL] = "journal",   [IOT_CAUSE_FLUSH] = "flush",
    [IOT_CAUSE_IO_URING] = "io_uring", [IOT_CAUSE_AIO] = "aio",
    [IOT_CAUSE_SWAP] = "swap",
};

static const char *const wbs[IOT_WB_MAX] = {
    [IOT_WB_NONE] = "",
    [IOT_WB_BACKGROUND] = "background",
    [IOT_WB_VMSCAN] = "memory",
    [IOT_WB_SYNC] = "sync",
    [IOT_WB_PERIODIC] = "periodic",
    [IOT_WB_FS_FREE_SPACE] = "fs_free_space",
    [IOT_WB_OTHER] = "other",
    [IOT_WB_FSYNC] = "fsync",
    [IOT_WB_WRITE_SYNC] = "write_sync",
    [IOT_WB_JOURNAL] = "journal",
    [IOT_WB_TASK] = "task",
};

static const char *const hosts[] = {
    [IOT_HOST_NONE] = "none",	 [IOT_HOST_REG] = "file",    [IOT_HOST_DIR] = "directory",
    [IOT_HOST_BLK] = "metadata", [IOT_HOST_OTHER] = "other", [IOT_HOST_ANON] = "anon",
};

const char *iot_cause_name(unsigned int cause)
{
	return cause < IOT_CAUSE_MAX && causes[cause] ? causes[cause] : "unknown";
}

const char *iot_wb_name(unsigned int wb)
{
	return wb < IOT_WB_MAX && wbs[wb] ? wbs[wb] : "unknown";
}

const char *iot_host_name(unsigned int host)
{
	return host < sizeof(hosts) / sizeof(hosts[0]) ? hosts[host] : "unknown";
}

int iot_cause_parse(const char *name)
{
	for (int i = 0; i < IOT_CAUSE_MAX; i++)
		if (causes[i] && !strcmp(causes[i], name))
			return i;
	return -1;
}

/* include/uapi/linux/io_uring.h, enum io_uring_op */
static const char *const uring_ops[] = {
    "nop",
    "readv",
    "writev",
    "fsync",
    "read_fixed",
    "write_fixed",
    "poll_add",
    "poll_remove",
    "sync_file_range",
    "sendmsg",
    "recvmsg",
    "timeout",
    "timeout_remove",
    "accept",
    "async_cancel",
    "link_timeout",
    "connect",
    "fallocate",
    "openat",
    "close",
    "files_update",
    "statx",
    "read",
    "write",
    "fadvise",
    "madvise",
    "send",
    "recv",
    "openat2",
    "epoll_ctl",
    "splice",
    "provide_buffers",
    "remove_buffers",
    "tee",
    "shutdown",
    "renameat",
    "unlinkat",
    "mkdirat",
    "symlinkat",
    "linkat",
    "msg_ring",
    "fsetxattr",
    "setxattr",
    "fgetxattr",
    "getxattr",
    "socket",
    "uring_cmd",
    "send_zc",
    "sendmsg_zc",
    "read_multishot",
    "waitid",
    "futex_wait",
    "futex_wake",
    "futex_waitv",
    "fixed_fd_install",
    "ftruncate",
    "bind",
    "listen",
    "recv_zc",
    "epoll_wait",
    "readv_fixed",
    "writev_fixed",
    "pipe",
};

const char *iot_uring_op_name(unsigned int op, char buf[16])
{
	if (op < sizeof(uring_ops) / sizeof(uring_ops[0]))
		return uring_ops[op];
	snprintf(buf, 16, "op%u", op);
	return buf;
}
