// SPDX-License-Identifier: GPL-2.0
#include "cause.h"

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
