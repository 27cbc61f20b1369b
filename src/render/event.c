// SPDX-License-Identifier: GPL-2.0
/* One event as a line of text, blkparse-like: time, CPU, task, action,
 * device, rwbs, sector + sectors, identity. Used by `iotrail script`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../trace/cause.h"

#include "../util/esc.h"
#include "render.h"

static const char *const actions[IOT_EV_MAX] = {
    [IOT_EV_BIO_QUEUE] = "Q",	    [IOT_EV_GETRQ] = "G",
    [IOT_EV_RQ_INSERT] = "I",	    [IOT_EV_RQ_ISSUE] = "D",
    [IOT_EV_RQ_COMPLETE] = "C",	    [IOT_EV_BIO_COMPLETE] = "BC",
    [IOT_EV_BIO_BACKMERGE] = "M",   [IOT_EV_BIO_FRONTMERGE] = "F",
    [IOT_EV_RQ_MERGE] = "RM",	    [IOT_EV_SPLIT] = "X",
    [IOT_EV_BIO_REMAP] = "A",	    [IOT_EV_RQ_REMAP] = "RA",
    [IOT_EV_RQ_REQUEUE] = "R",	    [IOT_EV_PLUG] = "P",
    [IOT_EV_UNPLUG] = "U",	    [IOT_EV_IO_START] = "S",
    [IOT_EV_IO_DONE] = "E",	    [IOT_EV_SYS_ENTER] = "SE",
    [IOT_EV_SYS_EXIT] = "SX",	    [IOT_EV_SUMMARY] = "SUM",
    [IOT_EV_STOP] = "STOP",	    [IOT_EV_RQ_INFO] = "RI",
    [IOT_EV_DEGRADE] = "BP",	    [IOT_EV_BIO_INFO] = "BI",
    [IOT_EV_DIRTY] = "DT",	    [IOT_EV_EXEC] = "EX",
    [IOT_EV_COMMIT] = "JC",	    [IOT_EV_WAKEUP] = "W",
    [IOT_EV_FAULT] = "PF",	    [IOT_EV_URING_SUBMIT] = "US",
    [IOT_EV_URING_COMPLETE] = "UC", [IOT_EV_URING_WORK] = "UW",
    [IOT_EV_MARK] = "MK",	    [IOT_EV_DRV_SUBMIT] = "NS",
    [IOT_EV_DRV_CQE] = "NQ",	    [IOT_EV_DRV_DONE] = "NC",
};

static const char *const names[IOT_EV_MAX] = {
    [IOT_EV_BIO_QUEUE] = "block_bio_queue",
    [IOT_EV_GETRQ] = "block_getrq",
    [IOT_EV_RQ_INSERT] = "block_rq_insert",
    [IOT_EV_RQ_ISSUE] = "block_rq_issue",
    [IOT_EV_RQ_COMPLETE] = "block_rq_complete",
    [IOT_EV_BIO_COMPLETE] = "block_bio_complete",
    [IOT_EV_BIO_BACKMERGE] = "block_bio_backmerge",
    [IOT_EV_BIO_FRONTMERGE] = "block_bio_frontmerge",
    [IOT_EV_RQ_MERGE] = "block_rq_merge",
    [IOT_EV_SPLIT] = "block_split",
    [IOT_EV_BIO_REMAP] = "block_bio_remap",
    [IOT_EV_RQ_REMAP] = "block_rq_remap",
    [IOT_EV_RQ_REQUEUE] = "block_rq_requeue",
    [IOT_EV_PLUG] = "block_plug",
    [IOT_EV_UNPLUG] = "block_unplug",
    [IOT_EV_IO_START] = "block_io_start",
    [IOT_EV_IO_DONE] = "block_io_done",
    [IOT_EV_RQ_INFO] = "rq_info",
    [IOT_EV_BIO_INFO] = "bio_info",
    [IOT_EV_DIRTY] = "dirty",
    [IOT_EV_EXEC] = "exec",
    [IOT_EV_COMMIT] = "jbd2_commit",
    [IOT_EV_WAKEUP] = "wakeup",
    [IOT_EV_FAULT] = "fault",
    [IOT_EV_URING_SUBMIT] = "io_uring_submit",
    [IOT_EV_URING_COMPLETE] = "io_uring_complete",
    [IOT_EV_URING_WORK] = "io_uring_work",
    [IOT_EV_MARK] = "mark",
    [IOT_EV_DRV_SUBMIT] = "nvme_setup_cmd",
    [IOT_EV_DRV_CQE] = "nvme_sq",
    [IOT_EV_DRV_DONE] = "nvme_complete_rq",
    [IOT_EV_SYS_ENTER] = "sys_enter",
    [IOT_EV_SYS_EXIT] = "sys_exit",
    [IOT_EV_SUMMARY] = "summary",
    [IOT_EV_STOP] = "stop",
    [IOT_EV_DEGRADE] = "backpressure",
};

const char *render_event_name(uint16_t type)
{
	return type < IOT_EV_MAX && names[type] ? names[type] : "unknown";
}

const char *render_action(uint16_t type)
{
	return type < IOT_EV_MAX && actions[type] ? actions[type] : "?";
}

void render_event(FILE *f, const struct iot_rec *r, uint64_t t0_ns, const char *dev_raw,
		  const char *comm_raw)
{
	double t = (int64_t)(r->ts_ns - t0_ns) / 1e9;
	char rwbs[8], dev[64], comm[72];

	/* names any process (or a crafted trace) chose: no terminal controls */
	text_clean(dev, sizeof(dev), dev_raw);
	text_clean(comm, sizeof(comm), comm_raw);

	switch (r->type) {
	case IOT_EV_SYS_ENTER:
		fprintf(f,
			"%14.9f %3u %7u %-16s SE  nr=%llu fd=%u count=%u pos=%lld "
			"ino=%llu dev=%u:%u\n",
			t, r->cpu, r->tid, comm, (unsigned long long)r->sector, r->flags,
			r->nr, (long long)r->id, (unsigned long long)r->id2, r->dev >> 20,
			r->dev & 0xfffff);
		return;
	case IOT_EV_SYS_EXIT:
		fprintf(f, "%14.9f %3u %7u %-16s SX  nr=%u ret=%lld\n", t, r->cpu, r->tid,
			comm, r->flags, (long long)r->sector);
		return;
	case IOT_EV_SUMMARY: {
		const struct iot_summary *s = (const void *)r;

		render_rwbs(s->flags, rwbs);
		fprintf(f,
			"%14.9f %3u %7u %-16s SUM %-8s %-4s %llu + %u q=%+.3fus g=%u "
			"i=%u d=%u ns%s\n",
			t, s->cpu, s->tid, comm, dev, rwbs, (unsigned long long)s->sector,
			s->nr, (int64_t)(s->q_ns - s->c_ns) / 1e3, s->g_delta_ns,
			s->i_delta_ns, s->d_delta_ns,
			(s->flags & IOT_SUMMARY_F_LOST) ? " lost: no completion seen"
			: (s->flags & IOT_SUMMARY_F_UNFINISHED)
			    ? " unfinished at the stop"
			    : "");
		return;
	}
	case IOT_EV_RQ_INFO:
		render_rwbs(r->flags, rwbs);
		fprintf(f,
			"%14.9f %3u %7u %-16s RI  %-8s %-4s id=%#llx bio=%#llx "
			"start=%+.3fus\n",
			t, r->cpu, r->tid, comm, dev, rwbs, (unsigned long long)r->id,
			(unsigned long long)r->id2,
			r->sector ? (int64_t)(r->sector - r->ts_ns) / 1e3 : 0.0);
		return;
	case IOT_EV_BIO_INFO:
		fprintf(f,
			"%14.9f %3u %7u %-16s BI  %-8s id=%#llx cause=%s%s%s host=%s "
			"ino=%llu "
			"index=%llu cgroup=%u\n",
			t, r->cpu, r->tid, comm, dev, (unsigned long long)r->id,
			iot_cause_name(r->flags & 0xff),
			(r->flags >> 8 & 0xff) ? "/" : "",
			(r->flags >> 8 & 0xff) ? iot_wb_name(r->flags >> 8 & 0xff) : "",
			iot_host_name(r->flags >> 16 & 0xff), (unsigned long long)r->id2,
			(unsigned long long)r->sector, r->nr);
		return;
	case IOT_EV_DIRTY:
		fprintf(
		    f,
		    "%14.9f %3u %7u %-16s DT  ino=%llu index=%llu pages=%u fsdev=%u:%u\n",
		    t, r->cpu, r->tid, comm, (unsigned long long)r->id,
		    (unsigned long long)r->id2, r->nr, r->dev >> 20, r->dev & 0xfffff);
		return;
	case IOT_EV_EXEC: {
		char name[17], clean[72];

		memcpy(name, &r->id, 8);
		memcpy(name + 8, &r->id2, 8);
		name[16] = 0;
		text_clean(clean, sizeof(clean), name);
		fprintf(f, "%14.9f %3u %7u %-16s EX  comm=%s\n", t, r->cpu, r->tid, comm,
			clean);
		return;
	}
	case IOT_EV_COMMIT:
		fprintf(f, "%14.9f %3u %7u %-16s JC  %s tid=%llu fsdev=%u:%u\n", t,
			r->cpu, r->tid, comm, r->flags & 1 ? "end" : "start",
			(unsigned long long)r->id, r->dev >> 20, r->dev & 0xfffff);
		return;
	case IOT_EV_FAULT:
		fprintf(f,
			"%14.9f %3u %7u %-16s PF  ino=%llu index=%llu pages=%u "
			"fsdev=%u:%u%s\n",
			t, r->cpu, r->tid, comm, (unsigned long long)r->id,
			(unsigned long long)r->id2, r->nr ? r->nr : 1, r->dev >> 20,
			r->dev & 0xfffff, r->flags & IOT_FAULT_AROUND ? " around" : "");
		return;
	case IOT_EV_WAKEUP:
		fprintf(f, "%14.9f %3u %7u %-16s W   tid=%llu\n", t, r->cpu, r->tid, comm,
			(unsigned long long)r->id);
		return;
	case IOT_EV_URING_SUBMIT: {
		char ob[16];

		fprintf(f, "%14.9f %3u %7u %-16s US  req=%#llx op=%s pos=%lld len=%u%s\n",
			t, r->cpu, r->tid, comm, (unsigned long long)r->id,
			iot_uring_op_name(r->flags & IOT_URING_OP_MASK, ob),
			(long long)r->id2, r->nr,
			r->flags & IOT_URING_SQPOLL ? " sqpoll" : "");
		return;
	}
	case IOT_EV_URING_COMPLETE: {
		char ob[16];

		fprintf(f,
			"%14.9f %3u %7u %-16s UC  req=%#llx op=%s user_data=%#llx "
			"res=%d ino=%llu fsdev=%u:%u\n",
			t, r->cpu, r->tid, comm, (unsigned long long)r->id,
			iot_uring_op_name(r->flags & IOT_URING_OP_MASK, ob),
			(unsigned long long)r->id2, (int32_t)r->nr,
			(unsigned long long)r->sector, r->dev >> 20, r->dev & 0xfffff);
		return;
	}
	case IOT_EV_MARK: {
		static const char *const kinds[] = {"point", "begin", "end"};
		char name[17], clean[72];

		memcpy(name, &r->id2, 8);
		memcpy(name + 8, &r->sector, 8);
		name[16] = 0;
		text_clean(clean, sizeof(clean), name);
		fprintf(f, "%14.9f   - %7u %-16s MK  %s %s id=%llu\n", t, r->tid, comm,
			r->flags < 3 ? kinds[r->flags] : "?", clean,
			(unsigned long long)r->id);
		return;
	}
	case IOT_EV_URING_WORK:
		fprintf(f, "%14.9f %3u %7u %-16s UW  %-8s bio=%#llx req=%#llx\n", t,
			r->cpu, r->tid, comm, dev, (unsigned long long)r->id,
			(unsigned long long)r->id2);
		return;
	case IOT_EV_DEGRADE:
		if (r->flags == IOT_DEGRADE_BEGIN)
			fprintf(f,
				"%14.9f %3u %7s %-16s BP  begin: buffer at %llu records, "
				"requests summarised from here\n",
				t, r->cpu, "-", "", (unsigned long long)r->id);
		else
			fprintf(f,
				"%14.9f %3u %7s %-16s BP  end: buffer at %llu records, "
				"%llu records not written\n",
				t, r->cpu, "-", "", (unsigned long long)r->id,
				(unsigned long long)r->id2);
		return;
	case IOT_EV_PLUG:
	case IOT_EV_UNPLUG:
		fprintf(f, "%14.9f %3u %7u %-16s %-3s %-8s nr=%u\n", t, r->cpu, r->tid,
			comm, render_action(r->type), dev, r->nr);
		return;
	default:
		render_rwbs(r->flags, rwbs);
		fprintf(
		    f,
		    "%14.9f %3u %7u %-16s %-3s %-8s %-4s %llu + %u id=%#llx id2=%#llx\n",
		    t, r->cpu, r->tid, comm, render_action(r->type), dev, rwbs,
		    (unsigned long long)r->sector, r->nr, (unsigned long long)r->id,
		    (unsigned long long)r->id2);
	}
}
