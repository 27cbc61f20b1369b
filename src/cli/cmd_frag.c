// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail frag: file fragmentation and filesystem layout (DAV's scopes).
 *   FILE | DIR          FIEMAP, file by file (mounted)
 *   DEV | --fs IMAGE    libext2fs, the whole filesystem, read-only
 *   MOUNTPOINT          libext2fs on its device after syncfs (ext2/3/4);
 *                       --method fiemap walks it instead
 *   DIR of an ext2/3/4  its tree, the same way (FIEMAP where the device
 *                       cannot be read, or with --method fiemap)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../frag/out.h"
#include "../frag/scan.h"
#include "cli.h"

static void frag_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail frag [-f text|tsv|json] [--fs] [--method "
	    "auto|fiemap|libext2fs]\n"
	    "                    [--svg FILE] [--html FILE] [--file PATH] [-s] [-v] "
	    "[--threads N] PATH...\n"
	    "\n"
	    "  PATH                 a file, a directory (every file under it), a block\n"
	    "                       device, a mount point, or an image with --fs\n"
	    "  -f, --format FMT     text (default), tsv, json (what overlay reads)\n"
	    "      --fs             PATH is a filesystem image (ext2/ext3/ext4)\n"
	    "      --method M       auto: libext2fs for devices, images and directories\n"
	    "                       of a mounted ext2/3/4 whose device can be read,\n"
	    "                       FIEMAP otherwise; or force one\n"
	    "      --svg FILE       the block map (and --file's view) as SVG\n"
	    "      --html FILE      the same in a self-contained HTML page\n"
	    "      --file PATH      add the file-order view of this file\n"
	    "  -s, --sync           FIEMAP: sync each file first (as filefrag -s)\n"
	    "      --threads N      FIEMAP: files mapped on N threads (default: the\n"
	    "                       CPUs; the output is the same)\n"
	    "  -v, --verbose        text: every extent\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A mountinfo field in place: the kernel writes space, tab, newline and
 * backslash as \ooo (octal). */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ =
			    (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* The mount of the filesystem that holds dir (dev: its st_dev): its type
 * and source device; *whole when dir is its mount point and the root of the
 * filesystem (not a bind mount of a directory). An exact mount point wins
 * over another mount of the same device, the last mount over earlier ones. */
static bool mount_of(const char *dir, dev_t dev, char *type, size_t tlen, char *src,
		     size_t slen, bool *whole)
{
	char line[8192], real[PATH_MAX];
	FILE *f;
	bool found = false;

	*whole = false;
	if (!realpath(dir, real))
		return false;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char root[4096], mp[4096], fstype[64], source[4096];
		const char *dash = strstr(line, " - ");
		unsigned int maj, min;
		bool exact;

		if (sscanf(line, "%*s %*s %u:%u %4095s %4095s", &maj, &min, root, mp) !=
			4 ||
		    !dash || sscanf(dash + 3, "%63s %4095s", fstype, source) != 2 ||
		    makedev(maj, min) != dev)
			continue;
		unescape_octal(root);
		unescape_octal(mp);
		unescape_octal(source);
		exact = !strcmp(mp, real);
		if (found && *whole && !exact)
			continue;
		snprintf(type, tlen, "%s", fstype);
		snprintf(src, slen, "%s", source);
		*whole = exact && !strcmp(root, "/");
		found = true;
	}
	fclose(f);
	return found;
}

/* Whether src is the block device dev and this process reads an ext2/3/4
 * superblock from it (not as an unprivileged user, nor in a sandbox that
 * hides its disks). */
static bool readable_device(const char *src, dev_t dev)
{
	struct stat st;

	return stat(src, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == dev &&
	       frag_is_ext(src);
}

static int scan_one(const char *path, bool fs_flag, const char *method, bool sync,
		    unsigned int threads, struct frag_scan *s, char *how, size_t howlen)
{
	struct stat st;
	char type[64], src[4096];
	bool whole;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (S_ISBLK(st.st_mode) || (fs_flag && S_ISREG(st.st_mode))) {
		if (!strcmp(method, "fiemap")) {
			fprintf(stderr,
				"iotrail: %s: --method fiemap needs a mounted file or "
				"directory\n",
				path);
			return 2;
		}
		snprintf(how, howlen, "%s, read-only",
			 S_ISBLK(st.st_mode) ? "block device" : "image file");
		return frag_ext_scan(path, "", s);
	}
	if (fs_flag) {
		fprintf(stderr,
			"iotrail: %s: --fs wants a block device or an image file\n",
			path);
		return 2;
	}
	if (S_ISDIR(st.st_mode) && strcmp(method, "fiemap") &&
	    mount_of(path, st.st_dev, type, sizeof(type), src, sizeof(src), &whole)) {
		bool forced = !strcmp(method, "libext2fs");
		int fd;

		if (strncmp(type, "ext", 3)) {
			if (forced) {
				fprintf(stderr,
					"iotrail: %s: a %s filesystem, not ext2/3/4\n",
					path, type);
				return 2;
			}
		} else if (!readable_device(src, st.st_dev)) {
			if (forced) {
				fprintf(stderr,
					"iotrail: %s: mounted from %s, from which this "
					"process cannot read an ext2/3/4 superblock\n",
					path, src);
				return 2;
			}
		} else {
			/* everything allocated and on the device before reading it */
			fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0) {
				syncfs(fd);
				close(fd);
			}
			if (whole) {
				snprintf(how, howlen,
					 "mounted, read from %s after syncfs", src);
				return frag_ext_scan(src, path, s);
			}
			snprintf(
			    how, howlen,
			    "a mounted directory, its tree read from %s after syncfs",
			    src);
			return frag_ext_scan_dir(src, path, st.st_ino, s);
		}
	}
	if (!strcmp(method, "libext2fs")) {
		fprintf(
		    stderr,
		    "iotrail: %s: --method libext2fs needs a device, an image (--fs) or "
		    "a directory of a mounted ext2/3/4\n",
		    path);
		return 2;
	}
	snprintf(how, howlen, "%s", "mounted, per file");
	return frag_walk(path, sync, threads, s) ? 2 : 0;
}

int cmd_frag(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"fs", no_argument, NULL, 'F'},
	    {"method", required_argument, NULL, 'm'},
	    {"svg", required_argument, NULL, 'S'},
	    {"html", required_argument, NULL, 'H'},
	    {"file", required_argument, NULL, 'V'},
	    {"sync", no_argument, NULL, 's'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"threads", required_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *format = "text", *method = "auto", *svg = NULL, *html = NULL,
		   *view = NULL;
	struct frag_scan s = {0};
	struct frag_out_opts oo = {0};
	bool fs_flag = false, sync = false;
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	char how[8192] = "", one[4200];
	const char *first = NULL; /* the first path's method */
	bool mixed = false;	  /* and a later one's differs */
	int c, ret = 0;
	double t0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:svh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "tsv") &&
			    strcmp(optarg, "json"))
				return usage_error("--format %s: not text, tsv or json",
						   optarg);
			format = optarg;
			break;
		case 'F':
			fs_flag = true;
			break;
		case 'm':
			if (strcmp(optarg, "auto") && strcmp(optarg, "fiemap") &&
			    strcmp(optarg, "libext2fs"))
				return usage_error(
				    "--method %s: not auto, fiemap or libext2fs", optarg);
			method = optarg;
			break;
		case 'S':
			svg = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'V':
			view = optarg;
			break;
		case 's':
			sync = true;
			break;
		case 'v':
			oo.verbose = true;
			break;
		case 'j': {
			char *end;

			errno = 0;
			threads = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || threads < 1 ||
			    threads > 1024)
				return usage_error(
				    "--threads %s: not a count from 1 to 1024", optarg);
			break;
		}
		case 'h':
			frag_usage(stdout);
			return 0;
		default:
			frag_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc)
		return usage_error("frag: which file, directory, device or image?");
	t0 = now_s();
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (i > optind &&
		    (s.has_fs || (stat(argv[i], &st) == 0 && S_ISBLK(st.st_mode)))) {
			ret = usage_error("frag: a whole filesystem is scanned alone");
			goto cleanup;
		}
		ret = scan_one(argv[i], fs_flag, method, sync,
			       threads > 0 ? (unsigned int)threads : 1, &s, one,
			       sizeof(one));
		if (ret)
			goto cleanup;
		/* several paths: each way they were read, once */
		if (!first)
			first = s.method;
		else if (strcmp(first, s.method))
			mixed = true;
		if (!strstr(how, one))
			snprintf(how + strlen(how), sizeof(how) - strlen(how), "%s%s",
				 *how ? "; " : "", one);
	}
	if (mixed)
		s.method = "mixed";
	oo.seconds = now_s() - t0;
	oo.scope = argc - optind == 1 ? argv[optind] : "(several paths)";
	oo.how = how;
	if (!strcmp(format, "json"))
		frag_print_json(stdout, &s, &oo);
	else if (!strcmp(format, "tsv"))
		frag_print_tsv(stdout, &s);
	else
		frag_print_text(stdout, &s, &oo);
	if (svg || html) {
		const struct frag_file *vf = NULL;

		for (size_t i = 0; view && i < s.nr_files; i++)
			if (!strcmp(s.files[i].path, view))
				vf = &s.files[i];
		if (view && !vf) {
			fprintf(stderr,
				"iotrail: --file %s: not among the scanned files\n",
				view);
			ret = 2;
			goto cleanup;
		}
		for (int k = 0; k < 2; k++) {
			const char *out = k ? html : svg;
			FILE *f;

			if (!out)
				continue;
			f = fopen(out, "we");
			if (!f) {
				fprintf(stderr, "iotrail: %s: %s\n", out,
					strerror(errno));
				ret = 1;
				goto cleanup;
			}
			if (k)
				frag_write_html(f, &s, vf, &oo);
			else
				frag_write_svg(f, &s, vf);
			if (fclose(f)) {
				fprintf(stderr, "iotrail: %s: %s\n", out,
					strerror(errno));
				ret = 1;
			}
		}
	}
	if (s.errors && !ret)
		ret = 1;
	if (s.damaged && !ret)
		ret = 3; /* damaged, but what could be read is shown */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "iotrail: standard output: %s\n", strerror(errno));
		ret = 1;
	}
cleanup:
	frag_scan_release(&s);
	return ret;
}
