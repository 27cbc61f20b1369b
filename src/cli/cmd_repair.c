// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail repair: estimates the completions, issues and queueings a trace
 * lost and writes them beside the measured records as estimates
 * (src/repair/, docs/REPAIR.md); with --evaluate, hides events of a
 * complete trace and says how well each method finds them again.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../repair/repair.h"
#include "../trace/writer.h"
#include "../util/json_writer.h"
#include "../util/parse.h"
#include "cli.h"

#define MAX_RATES 16

struct repair_opts {
	const char *input, *output;
	enum repair_method method;
	enum repair_event event; /* --evaluate's */
	double rates[MAX_RATES];
	size_t nr_rates;
	bool burst, json;
	uint64_t seed;
};

static void repair_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail repair -i TRACE -o REPAIRED [--method NAME]\n"
	    "       iotrail repair --evaluate RATES -i COMPLETE_TRACE [--burst] [--seed "
	    "N]\n"
	    "                      [--event complete|issue|queue|exit] [-f text|json]\n"
	    "\n"
	    "  finds the requests whose completion, issue or first bio's queueing\n"
	    "  the trace lost (a struct request issued again first, or never\n"
	    "  completed long before the end; a completion of a request inserted or\n"
	    "  allocated but never issued; a bio that allocated a request with no\n"
	    "  queueing) and the system calls that lost their exit (the task entered\n"
	    "  another first, or its CPU lost records before the next exit), estimates\n"
	    "  each time and writes the trace again with the estimates as estimated\n"
	    "  records (every analyzer counts them; report --measured-only leaves\n"
	    "  them out)\n"
	    "\n"
	    "  -i, --input TRACE     the trace\n"
	    "  -o, --output FILE     the repaired trace (not the input)\n"
	    "  -m, --method NAME     evidence (default), knn (seed 003's k-NN moving\n"
	    "                        average), mean, zero (the completion at the issue)\n"
	    "      --evaluate RATES  hide these shares of the events "
	    "(1%%,10%%,20%%),\n"
	    "                        estimate them with every method, print the mean\n"
	    "                        and 99th percentile absolute error\n"
	    "      --burst           hide them in runs of 16 requests, as full buffers "
	    "do\n"
	    "      --seed N          which ones (default 1): the same for every method\n"
	    "      --event KIND      what to hide: complete (default), issue (D),\n"
	    "                        queue (the first bio's Q) or exit (a system\n"
	    "                        call's)\n"
	    "  -f, --format FMT      text (default) or json\n");
}

static int parse_rates(const char *arg, struct repair_opts *o)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		double v = strtod(t, &end);

		if (end == t || (*end && strcmp(end, "%")) || v <= 0 || v >= 100)
			return usage_error(
			    "--evaluate %s: '%s' is not a share between 0 and "
			    "100%%",
			    arg, t);
		if (o->nr_rates == MAX_RATES)
			return usage_error("--evaluate %s: at most %d rates", arg,
					   MAX_RATES);
		o->rates[o->nr_rates++] = v / 100;
	}
	return o->nr_rates ? 0 : usage_error("--evaluate: no rate");
}

/* ---- --evaluate ---------------------------------------------------------------------
 */

static int evaluate(const struct repair_opts *o, struct repair_set *s)
{
	const char *ev = repair_event_names[o->event];
	size_t known = repair_hideable(s, o->event);
	struct json_writer w;

	if (!known) {
		fprintf(
		    stderr,
		    "iotrail: %s: no request has its %s event and a time around it to "
		    "hide it between%s\n",
		    o->input, ev,
		    o->event == RE_ISSUE ? " (a bio-based device has no issue)" : "");
		return 1;
	}
	if (o->json) {
		jw_init(&w, stdout, true);
		jw_start_object(&w);
		jw_name(&w, "results");
		jw_start_array(&w);
	} else {
		printf("# %s: %zu %s with their %s event; hidden %s (seed %llu)\n",
		       o->input, known, o->event == RE_EXIT ? "system calls" : "requests",
		       ev, o->burst ? "in runs of 16" : "uniformly",
		       (unsigned long long)o->seed);
		printf("%-10s %6s %8s %10s %8s %10s %10s\n", "METHOD", "RATE", "HIDDEN",
		       "ESTIMATED", "REFUSED", "MAE_US", "P99_US");
	}
	for (size_t k = 0; k < o->nr_rates; k++) {
		for (int m = 0; m < NR_RM; m++) {
			struct repair_eval e;

			if (repair_evaluate(s, o->event, o->rates[k], o->burst, o->seed,
					    (enum repair_method)m, &e)) {
				fprintf(stderr, "iotrail: out of memory\n");
				return 1;
			}
			if (o->json) {
				jw_start_object(&w);
				jw_string_field(&w, "method", repair_method_names[m]);
				jw_string_field(&w, "event", ev);
				jw_float_field(&w, "rate", e.rate);
				jw_name(&w, "burst");
				jw_bool(&w, e.burst);
				jw_float_field(&w, "mae_ns", e.mae_ns);
				jw_float_field(&w, "p99_ns", e.p99_ns);
				jw_uint_field(&w, "hidden", e.hidden);
				jw_uint_field(&w, "estimated", e.estimated);
				jw_uint_field(&w, "refused", e.refused);
				jw_end_object(&w);
			} else {
				printf("%-10s %5.1f%% %8llu %10llu %8llu %10.3f %10.3f\n",
				       repair_method_names[m], e.rate * 100,
				       (unsigned long long)e.hidden,
				       (unsigned long long)e.estimated,
				       (unsigned long long)e.refused, e.mae_ns / 1e3,
				       e.p99_ns / 1e3);
			}
		}
	}
	if (o->json) {
		jw_end_array(&w);
		jw_end_object(&w);
		putchar('\n');
	}
	return 0;
}

/* ---- the repaired trace -------------------------------------------------------------
 */

static int cmp_rec(const void *a, const void *b)
{
	const struct iot_rec *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

/* the estimates with a time at or before limit, as one REPAIR chunk */
static int flush_estimates(struct trace_writer *w, const struct iot_rec *e, size_t n,
			   size_t *next, uint64_t limit)
{
	size_t from = *next;

	while (*next < n && e[*next].ts_ns <= limit)
		(*next)++;
	if (*next == from)
		return 0;
	return trace_writer_chunk(w, IOT_CHUNK_REPAIR, 0, e + from,
				  (*next - from) * sizeof(*e), NULL, 0);
}

/* Every chunk of the input as it is, the estimates before the ROUND that
 * follows them; the header says what was done. */
static int write_repaired(const struct repair_opts *o, const struct trace_reader *rd,
			  const struct iot_rec *e, size_t ne, uint64_t mae_ns)
{
	struct iot_file_header h = rd->hdr;
	struct trace_writer w;
	uint64_t off = rd->hdr.header_size;
	size_t next = 0, k = 0;
	int err;

	if (ne) /* REPAIR chunks: a reader must know them */
		h.version_minor = h.version_minor < IOT_VERSION_MINOR_UNPACKED
				      ? IOT_VERSION_MINOR_UNPACKED
				      : h.version_minor;
	h.repair_method = (uint32_t)o->method + 1;
	h.repair_estimated = ne;
	h.repair_mae_ns = mae_ns;
	err = trace_writer_open(&w, o->output, &h);
	while (!err && off + sizeof(struct iot_chunk) <= rd->size) {
		struct iot_chunk c;

		memcpy(&c, rd->map + off, sizeof(c));
		if (!c.type)
			break; /* damage: the reader said where (its warning) */
		if (c.size > rd->size - off - sizeof(c)) {
			/* cut short by the file's end (a killed recording):
			 * the whole records the reader took from it, then stop */
			const struct reader_chunk *rc =
			    c.type == IOT_CHUNK_EVENTS ||
				    c.type == IOT_CHUNK_EVENTS_PACKED
				? trace_reader_chunk_at(rd, &k, off + sizeof(c))
				: NULL;
			struct iot_rec *tmp = NULL;
			const struct iot_rec *recs = rc ? rc->recs : NULL;

			if (rc && !recs && rc->packed_bytes)
				recs = tmp = trace_reader_unpack(rd, rc);
			if (rc && rc->size && !recs)
				err = -ENOMEM;
			else if (rc && rc->size)
				err = trace_writer_chunk(&w, IOT_CHUNK_EVENTS, rc->cpu,
							 recs, rc->size, NULL, 0);
			free(tmp);
			break;
		}
		if (c.type == IOT_CHUNK_ROUND && c.size >= sizeof(struct iot_round)) {
			struct iot_round r;

			memcpy(&r, rd->map + off + sizeof(c), sizeof(r));
			err = flush_estimates(&w, e, ne, &next, r.mark_ns);
		} else if (c.type == IOT_CHUNK_END) {
			err = flush_estimates(&w, e, ne, &next, UINT64_MAX);
		}
		if (!err)
			err = trace_writer_chunk(&w, c.type, c.cpu,
						 rd->map + off + sizeof(c), c.size, NULL,
						 0);
		off += sizeof(c) + c.size;
	}
	if (!err)
		err = flush_estimates(&w, e, ne, &next, UINT64_MAX);
	if (trace_writer_close(&w) && !err)
		err = -EIO;
	if (err)
		fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-err));
	return err ? 1 : 0;
}

/* the record that estimates event e of q at t */
static void estimate_rec(const struct rreq *q, enum repair_event e, uint64_t t,
			 struct iot_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = t;
	r->sector = q->sector;
	r->nr = q->nr;
	r->dev = q->dev;
	r->cpu = q->cpu;
	r->flags = q->flags | IOT_F_ESTIMATED;
	switch (e) {
	case RE_COMPLETE:
		r->type = q->bio_based ? IOT_EV_BIO_COMPLETE : IOT_EV_RQ_COMPLETE;
		r->id = q->rq;
		/* all of it, no error */
		r->id2 = q->bio_based ? 0 : (uint64_t)q->nr << 32;
		break;
	case RE_ISSUE:
		r->type = IOT_EV_RQ_ISSUE;
		r->id = q->rq;
		r->id2 = q->bio;
		break;
	default: /* the first bio: at the request's sector */
		r->type = IOT_EV_BIO_QUEUE;
		r->id = q->bio;
		r->nr = q->bio_nr;
		r->pid = q->pid;
		r->tid = q->tid;
		break;
	}
}

/* the estimated exit of call y: its return value is not known */
static void estimate_exit(const struct rsys *y, uint64_t t, struct iot_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = t;
	r->type = IOT_EV_SYS_EXIT;
	r->sector = (uint64_t)IOT_RET_UNKNOWN;
	r->pid = y->pid;
	r->tid = y->tid;
	r->cpu = y->cpu;
	r->flags = y->nr | IOT_F_ESTIMATED;
}

static bool lost_ev(const struct rreq *q, enum repair_event e)
{
	return e == RE_COMPLETE ? q->missing : e == RE_ISSUE ? q->miss_d : q->miss_q;
}

/* devices that lost e and have no such event left to estimate from */
static void say_refused(const struct trace_reader *rd, const struct repair_set *s,
			enum repair_event e)
{
	for (size_t i = 0; i < s->n;) {
		size_t j = i, lost = 0, done = 0;

		for (; j < s->n && s->r[j].dev == s->r[i].dev; j++) {
			lost += lost_ev(&s->r[j], e);
			done += e == RE_COMPLETE ? s->r[j].c_ns && !s->r[j].missing
				: e == RE_ISSUE	 ? s->r[j].d_ns && !s->r[j].miss_d
						 : s->r[j].q_ns && !s->r[j].miss_q;
		}
		if (lost && !done) {
			const struct iot_dev_entry *d = trace_reader_dev(rd, s->r[i].dev);

			fprintf(
			    stderr,
			    "iotrail: %s: no %s event of this device is in the trace: "
			    "its %zu missing cannot be estimated, and are left missing\n",
			    d ? d->name : "a device", repair_event_names[e], lost);
		}
		i = j;
	}
}

/* [from, to] time spans, merged into disjoint ones in time order */
struct tspan {
	uint64_t from, to;
};

static int cmp_tspan(const void *a, const void *b)
{
	const struct tspan *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static size_t union_spans(struct tspan *s, size_t n)
{
	size_t m = 0;

	qsort(s, n, sizeof(*s), cmp_tspan);
	for (size_t i = 0; i < n; i++) {
		if (m && s[i].from <= s[m - 1].to) {
			if (s[i].to > s[m - 1].to)
				s[m - 1].to = s[i].to;
		} else {
			s[m++] = s[i];
		}
	}
	return m;
}

/* Whether t lies in one of s[0, n) (disjoint, in time order), for t that
 * never go back: *k is where the last search ended. */
static bool in_spans(const struct tspan *s, size_t n, size_t *k, uint64_t t)
{
	while (*k < n && s[*k].to < t)
		(*k)++;
	return *k < n && s[*k].from <= t;
}

/*
 * Which losses the per-CPU drop counters explain: an estimate (e, by time)
 * inside a stretch where some CPU's buffer dropped records, or not (the
 * kernel never ran the program: docs/STAT.md). Said on stderr. The
 * stretches of every CPU become one list of spans, so that a trace of
 * hundreds of CPUs and a million estimates takes one pass.
 */
static void say_where(const struct repair_opts *o, const struct trace_reader *rd,
		      const struct iot_rec *e, size_t ne)
{
	size_t n = rd->nr_drop_stretches, nd = 0, nb = 0, kd = 0, kb = 0, in = 0, bp = 0;
	uint64_t drops = 0, end = ~0ull;
	struct tspan *ds, *bs;

	for (size_t i = 0; i < rd->nr_drops; i++)
		drops += iot_drop_total(&rd->drops[i]);
	if (!ne)
		return;
	if (drops && !n) {
		fprintf(stderr,
			"iotrail: %s: %llu records were dropped, the trace does not say "
			"when (before format 1.9): which losses they explain is not "
			"known\n",
			o->input, (unsigned long long)drops);
		return;
	}
	ds = malloc((n ? n : 1) * sizeof(*ds));
	bs = malloc((rd->nr_degrades ? rd->nr_degrades : 1) * sizeof(*bs));
	if (!ds || !bs) {
		fprintf(stderr,
			"iotrail: %s: out of memory: where the %zu estimated "
			"events lie is not said\n",
			o->input, ne);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (rd->drop_stretches[i].drops)
			/* records lost after from_ns, by to_ns */
			ds[nd++] = (struct tspan){rd->drop_stretches[i].from_ns + 1,
						  rd->drop_stretches[i].to_ns};
	/* back-pressure: a CPU left its records out on purpose (a call's exit,
	 * say, after its enter was written); a stretch open at the end lasts
	 * to it */
	for (size_t i = 0; i < rd->nr_degrades; i++)
		bs[nb++] =
		    (struct tspan){rd->degrades[i].from_ns,
				   rd->degrades[i].to_ns ? rd->degrades[i].to_ns : end};
	nd = union_spans(ds, nd);
	nb = union_spans(bs, nb);
	for (size_t i = 0; i < ne; i++) {
		bool dropped = in_spans(ds, nd, &kd, e[i].ts_ns);

		in += dropped;
		bp += !dropped && in_spans(bs, nb, &kb, e[i].ts_ns);
	}
	if (!rd->nr_degrades) {
		fprintf(stderr,
			"iotrail: %s: %zu of the %zu estimated events lie where a CPU's "
			"buffer dropped records; %zu where none did (the kernel did not "
			"hand them to the programs)\n",
			o->input, in, ne, ne - in);
		goto out;
	}
	fprintf(stderr,
		"iotrail: %s: %zu of the %zu estimated events lie where a CPU's buffer "
		"dropped records; %zu in a back-pressure stretch (where a CPU wrote "
		"summaries and left other records out); %zu in neither (the kernel did "
		"not hand them to the programs)\n",
		o->input, in, ne, bp, ne - in - bp);
out:
	free(ds);
	free(bs);
}

static int repair(const struct repair_opts *o, struct trace_reader *rd,
		  struct repair_set *s)
{
	uint64_t lost[NR_RE] = {s->lost, s->lost_d, s->lost_q, s->lost_exit}, mae_sum = 0;
	uint64_t all = s->lost + s->lost_d + s->lost_q + s->lost_exit;
	uint64_t *est = malloc((s->n + s->nsys + 1) * sizeof(*est)), mae[NR_RE] = {0};
	struct iot_rec *e = calloc(all + 1, sizeof(*e));
	size_t ne = 0, refused = 0, made[NR_RE] = {0}, by_sector = 0;
	int ret;

	if (!est || !e) {
		free(est);
		free(e);
		fprintf(stderr, "iotrail: out of memory\n");
		return 1;
	}
	for (int ev = 0; ev < NR_RE; ev++) {
		size_t known;

		if (!lost[ev])
			continue;
		repair_order(s, (enum repair_event)ev);
		refused += repair_estimate(s, (enum repair_event)ev, o->method, est);
		for (size_t i = 0; ev == RE_EXIT && i < s->nsys; i++) {
			if (!s->sys[i].missing || !est[i] || ne >= all)
				continue;
			estimate_exit(&s->sys[i], est[i], &e[ne++]);
			made[ev]++;
		}
		for (size_t i = 0; ev != RE_EXIT && i < s->n; i++) {
			if (!lost_ev(&s->r[i], (enum repair_event)ev) || !est[i] ||
			    ne >= all)
				continue;
			estimate_rec(&s->r[i], (enum repair_event)ev, est[i], &e[ne++]);
			made[ev]++;
			by_sector += ev == RE_ISSUE && s->r[i].by_sector;
		}
		if (ev != RE_EXIT)
			say_refused(rd, s, (enum repair_event)ev);
		/* the expected error: as many of this trace's own events hidden
		 * as it lost, found again the same way */
		known = repair_hideable(s, (enum repair_event)ev);
		if (made[ev] && known >= 10) {
			struct repair_eval x;
			double rate = (double)lost[ev] / (double)(known + lost[ev]);

			if (!repair_evaluate(s, (enum repair_event)ev,
					     rate < 0.01 ? 0.01 : rate, false, 1,
					     o->method, &x))
				mae[ev] = (uint64_t)x.mae_ns;
		}
		mae_sum += mae[ev] * made[ev];
	}
	qsort(e, ne, sizeof(*e), cmp_rec);
	for (size_t i = 0; i < ne; i++)
		e[i].seq = i;
	say_where(o, rd, e, ne);
	ret = write_repaired(o, rd, e, ne, ne ? mae_sum / ne : 0);
	if (!ret && by_sector)
		fprintf(
		    stderr,
		    "iotrail: %s: %zu of the estimated issues have no I: their request "
		    "was tied to its bio by device and sector alone\n",
		    o->output, by_sector);
	if (!ret)
		fprintf(
		    stderr,
		    "iotrail: %s: %llu completions missing, %zu estimated (expected "
		    "error %.2f us); %llu issues missing, %zu estimated (%.2f us); %llu "
		    "queueings missing, %zu estimated (%.2f us); %llu system call exits "
		    "missing, %zu estimated (%.2f us); method %s, %zu refused; "
		    "%llu requests in flight at the end, %llu completions of nothing "
		    "seen (not repaired)\n",
		    o->output, (unsigned long long)s->lost, made[RE_COMPLETE],
		    mae[RE_COMPLETE] / 1e3, (unsigned long long)s->lost_d, made[RE_ISSUE],
		    mae[RE_ISSUE] / 1e3, (unsigned long long)s->lost_q, made[RE_QUEUE],
		    mae[RE_QUEUE] / 1e3, (unsigned long long)s->lost_exit, made[RE_EXIT],
		    mae[RE_EXIT] / 1e3, repair_method_names[o->method], refused,
		    (unsigned long long)s->in_flight, (unsigned long long)s->orphan_c);
	free(est);
	free(e);
	return ret;
}

int cmd_repair(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"method", required_argument, NULL, 'm'},
	    {"evaluate", required_argument, NULL, 'E'},
	    {"burst", no_argument, NULL, 'b'},
	    {"seed", required_argument, NULL, 's'},
	    {"event", required_argument, NULL, 'e'},
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct repair_opts o = {.method = RM_EVIDENCE, .seed = 1};
	struct trace_reader rd;
	struct repair_set s;
	char errbuf[512];
	struct stat a, b;
	int c, m, ret;

	while ((c = getopt_long(argc, argv, "i:o:m:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'm':
			m = repair_method_find(optarg);
			if (m < 0)
				return usage_error(
				    "--method %s: evidence, knn, mean or zero", optarg);
			o.method = (enum repair_method)m;
			break;
		case 'E':
			ret = parse_rates(optarg, &o);
			if (ret)
				return ret;
			break;
		case 'b':
			o.burst = true;
			break;
		case 's':
			if (parse_count(optarg, &o.seed))
				return usage_error("--seed %s: not a number", optarg);
			break;
		case 'e':
			m = repair_event_find(optarg);
			if (m < 0)
				return usage_error(
				    "--event %s: complete, issue, queue or exit", optarg);
			o.event = (enum repair_event)m;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				return usage_error("-f %s: text or json", optarg);
			o.json = !strcmp(optarg, "json");
			break;
		case 'h':
			repair_usage(stdout);
			return 0;
		default:
			repair_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return usage_error("repair: unexpected argument '%s'", argv[optind]);
	if (!o.input)
		return usage_error("repair: -i TRACE is needed");
	if (!o.nr_rates && !o.output)
		return usage_error("repair: -o REPAIRED (or --evaluate RATES) is needed");
	if (o.output && !stat(o.input, &a) && !stat(o.output, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return usage_error("-o %s: the input itself; write the repair elsewhere",
				   o.output);
	if (trace_reader_open(&rd, o.input, errbuf, sizeof(errbuf))) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 1;
	}
	if (rd.hdr.repair_method) {
		fprintf(stderr,
			"iotrail: %s: already repaired (%llu estimates); repair the "
			"recording itself\n",
			o.input, (unsigned long long)rd.hdr.repair_estimated);
		trace_reader_release(&rd);
		return 1;
	}
	if (repair_scan(&rd, &s)) {
		fprintf(stderr, "iotrail: %s: out of memory\n", o.input);
		trace_reader_release(&rd);
		return 1;
	}
	if (rd.warning[0])
		fprintf(stderr, "iotrail: warning: %s\n", rd.warning);
	ret = o.nr_rates ? evaluate(&o, &s) : repair(&o, &rd, &s);
	repair_set_release(&s);
	trace_reader_release(&rd);
	return ret;
}
