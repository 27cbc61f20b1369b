# iotrail build: clang's BPF target -> bpftool gen object/skeleton -> gcc.
# vmlinux.h is generated from the running kernel's BTF (CO-RE).
OUT        := build
CC         ?= gcc
CLANG      ?= clang
BPFTOOL    ?= bpftool
ARCH       := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

# CFLAGS is yours (make CFLAGS=-O0 keeps the project's own flags below);
# SAN adds sanitizers to every compile and link (make asan, make fuzz).
CFLAGS     ?= -O2 -g
SAN        ?=
IOT_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
IOT_CFLAGS += $(if $(findstring clang,$(CC)),-Wno-unknown-warning-option,-Wno-format-truncation)
IOT_CFLAGS += -I$(OUT) -Isrc -Iinclude -D_GNU_SOURCE
COMPILE     = $(CC) $(CFLAGS) $(SAN) $(IOT_CFLAGS)
LDLIBS     := -lbpf -lelf -lz -lm -lext2fs -lcom_err -ljansson -lncurses

APP_SRCS   := $(wildcard src/cli/*.c)
LIB_SRCS   := $(wildcard src/trace/*.c src/join/*.c src/analyze/*.c src/render/*.c src/util/*.c src/layout/*.c src/frag/*.c src/devstat/*.c src/stacks/*.c src/repair/*.c src/import/*.c src/export/*.c src/serve/*.c) src/diskmodel/hdd.c
REC_SRCS   := $(wildcard src/record/*.c)
LIB_OBJS   := $(patsubst src/%.c,$(OUT)/obj/%.o,$(LIB_SRCS))
REC_OBJS   := $(patsubst src/%.c,$(OUT)/obj/%.o,$(REC_SRCS))
APP_OBJS   := $(patsubst src/%.c,$(OUT)/obj/%.o,$(APP_SRCS))

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

.PHONY: all clean test unit unit-bins tools format check man install asan fuzz fuzz-bins fuzzers
PREFIX     ?= /usr/local
DESTDIR    ?=
# the disk model's FUSE server (docs/DISKMODEL.md; `iotrail demo --disk hdd`),
# where libfuse3 is installed
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(shell pkg-config --libs fuse3 2>/dev/null)
HDD         := $(if $(FUSE_LIBS),$(OUT)/iotrail-hdd)
all: $(OUT)/iotrail tools $(OUT)/libiotrail-marker.a $(OUT)/libiotrail-marker.so $(HDD)


$(OUT)/vmlinux.h:
	@mkdir -p $(OUT)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

# The BPF programs, built twice from one source (see src/bpf/iotrail.bpf.c):
# typed tp_btf programs first, untyped raw_tp programs as the fallback. Both
# skeletons are named iotrail_bpf so the recorder drives either.
BPF_DEPS := $(wildcard src/bpf/*.c src/bpf/*.h) $(OUT)/vmlinux.h
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUT) -Isrc/bpf

$(OUT)/iotrail_btf.bpf.o: $(BPF_DEPS)
	$(CLANG) $(BPF_CFLAGS) -DIOT_TP_BTF -c src/bpf/iotrail.bpf.c -o $(OUT)/iotrail_btf.tmp.bpf.o
	$(BPFTOOL) gen object $@ $(OUT)/iotrail_btf.tmp.bpf.o

$(OUT)/iotrail_raw.bpf.o: $(BPF_DEPS)
	$(CLANG) $(BPF_CFLAGS) -c src/bpf/iotrail.bpf.c -o $(OUT)/iotrail_raw.tmp.bpf.o
	$(BPFTOOL) gen object $@ $(OUT)/iotrail_raw.tmp.bpf.o

$(OUT)/iotrail_%.skel.h: $(OUT)/iotrail_%.bpf.o
	$(BPFTOOL) gen skeleton $< name iotrail_bpf > $@.tmp && mv $@.tmp $@

# the subcommands' own small BPF objects, each with its ABI header if it has
# one: callers (any tracepoint), sched, devlat (stat --trace), top
SMALL_BPF := callers sched devlat top
$(patsubst %,$(OUT)/%.bpf.o,$(SMALL_BPF)): $(OUT)/%.bpf.o: src/bpf/%.bpf.c $(OUT)/vmlinux.h \
		$(wildcard src/bpf/*_abi.h src/bpf/*.bpf.h)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $(OUT)/$*.tmp.bpf.o
	$(BPFTOOL) gen object $@ $(OUT)/$*.tmp.bpf.o
$(patsubst %,$(OUT)/%.skel.h,$(SMALL_BPF)): $(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(REC_OBJS): $(OUT)/iotrail_btf.skel.h $(OUT)/iotrail_raw.skel.h \
	$(patsubst %,$(OUT)/%.skel.h,$(SMALL_BPF))

# header dependencies as the compiler saw them (-MMD), and phony targets for
# headers that go away (-MP)
$(OUT)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(COMPILE) -MMD -MP -c $< -o $@

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)

$(OUT)/iotrail-hdd: src/diskmodel/hdd_fuse.c $(OUT)/libiotrail.a
	$(COMPILE) $(FUSE_CFLAGS) -o $@ $^ $(FUSE_LIBS) -lm

$(OUT)/libiotrail.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(OUT)/iotrail: $(APP_OBJS) $(REC_OBJS) $(OUT)/libiotrail.a
	$(COMPILE) -o $@ $^ $(LDLIBS)

# small C programs the tests and benchmarks drive
tools: $(OUT)/tools/blksplit $(OUT)/tools/mktrace $(OUT)/tools/fsyncloop \
       $(OUT)/tools/uringrd $(OUT)/tools/marked
TOOL_LIBS_uringrd := -luring
TOOL_LIBS_marked := $(OUT)/libiotrail-marker.a -lpthread
$(OUT)/tools/marked: $(OUT)/libiotrail-marker.a
$(OUT)/tools/%: tests/tools/%.c $(OUT)/libiotrail.a
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $^ -lm $(TOOL_LIBS_$*)

# unit tests of the recorder's pure parts link their objects too
$(OUT)/tests/test_flowdef: $(OUT)/obj/record/flowdef.o
$(OUT)/tests/test_devrange: $(OUT)/obj/record/devices.o
$(OUT)/tests/test_bpflog: $(OUT)/obj/record/bpflog.o
LDLIBS_test_bpflog := -lbpf
$(OUT)/tests/test_%: tests/unit/test_%.c $(OUT)/libiotrail.a
	@mkdir -p $(dir $@)
	@mkdir -p $(OUT)/obj/tests
	$(COMPILE) -MMD -MP -MF $(OUT)/obj/tests/$*.d -o $@ $(filter-out %.a,$^) $(filter %.a,$^) -lcmocka -ljansson -lm $(LDLIBS_test_$*)

# the user markers' library (include/iotrail/marker.h), static and shared
MARKER_CFLAGS = $(CFLAGS) $(SAN) $(IOT_CFLAGS) -Iinclude -fPIC -fvisibility=hidden \
	'-DIOT_MARK_API=__attribute__((visibility("default")))'
$(OUT)/obj/marker/%.o: src/marker/%.c src/marker/abi.h include/iotrail/marker.h
	@mkdir -p $(dir $@)
	$(CC) $(MARKER_CFLAGS) -c $< -o $@
$(OUT)/libiotrail-marker.a: $(OUT)/obj/marker/marker.o
	rm -f $@ && ar rcs $@ $^
$(OUT)/libiotrail-marker.so: $(OUT)/obj/marker/marker.o
	$(CC) $(CFLAGS) $(SAN) -shared -Wl,-soname,libiotrail-marker.so.1 -o $@ $^ -lpthread

# benchmark helpers (bench/)
$(OUT)/floor.bpf.o: bench/floor.bpf.c $(OUT)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $(OUT)/floor.tmp.bpf.o
	$(BPFTOOL) gen object $@ $(OUT)/floor.tmp.bpf.o
$(OUT)/floor.skel.h: $(OUT)/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@
$(OUT)/bench/percall: bench/percall.c $(OUT)/floor.skel.h
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $< $(LDLIBS) -lpthread

$(OUT)/blockfloor.bpf.o: bench/blockfloor.bpf.c $(OUT)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $(OUT)/blockfloor.tmp.bpf.o
	$(BPFTOOL) gen object $@ $(OUT)/blockfloor.tmp.bpf.o
$(OUT)/blockfloor.skel.h: $(OUT)/blockfloor.bpf.o
	$(BPFTOOL) gen skeleton $< name blockfloor_bpf > $@.tmp && mv $@.tmp $@
$(OUT)/bench/blockfloor: bench/blockfloor.c $(OUT)/blockfloor.skel.h
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $< $(LDLIBS)

$(OUT)/bench/packsize: bench/packsize.c $(OUT)/libiotrail.a
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $^ $(LDLIBS)

$(OUT)/bench/drainrate: bench/drainrate.c $(OUT)/libiotrail.a
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $^ $(LDLIBS) -lpthread

$(OUT)/bench/markers: bench/markers.c $(OUT)/libiotrail-marker.a
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $^ -lpthread

# static: device_check.sh carries it to a machine where nothing is installed
$(OUT)/bench/memprobe: bench/memprobe.c
	@mkdir -p $(dir $@)
	$(COMPILE) -static -o $@ $<

unit-bins: $(UNIT_BINS)

# A build with AddressSanitizer and UBSan (any error aborts), in build/asan:
# the test run runs the unit tests and the untrusted-input tests with it.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
asan:
	$(MAKE) OUT=build/asan CFLAGS="-O1 -g" SAN="$(ASAN_FLAGS)" all unit-bins

# A build with ThreadSanitizer, in build/tsan: the analyzers in threads of
# their own (src/analyze/fanout.c) and the join on threads (src/join/parallel.c)
# under it, in test_analyzers, test_join and test_pack; a metric sorted on
# threads (src/analyze/metric.c) in test_metric.
tsan:
	$(MAKE) OUT=build/tsan CFLAGS="-O1 -g" SAN="-fsanitize=thread" \
		build/tsan/iotrail build/tsan/tests/test_analyzers build/tsan/tests/test_trace \
		build/tsan/tests/test_join build/tsan/tests/test_metric

# libFuzzer harnesses (tests/fuzz/), built with clang in build/fuzz; `make
# fuzz` runs each for FUZZ_SECONDS after the regression corpus.
FUZZERS      := trace layout ext blktrace http export
FUZZ_SECONDS ?= 60
fuzz-bins:
	$(MAKE) OUT=build/fuzz CC=$(CLANG) CFLAGS="-O1 -g" \
		SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" fuzzers
fuzzers: $(patsubst %,$(OUT)/fuzz_%,$(FUZZERS))
# the export harness runs the subcommands themselves
$(OUT)/fuzz_export: $(patsubst %,$(OUT)/obj/cli/%.o,cmd_export cmd_script cmd_flows cmd_report \
		cmd_pack cmd_repair usage)
$(OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(OUT)/obj/cli/pipeline.o $(OUT)/libiotrail.a
	$(CC) $(CFLAGS) $(IOT_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ \
		$(filter-out %.a,$^) $(filter %.a,$^) $(LDLIBS)
fuzz: fuzz-bins
	tests/fuzz/run.sh $(FUZZ_SECONDS)

unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do $$t || exit 1; done

test: all $(UNIT_BINS) asan tsan fuzz-bins
	@tests/run-all.sh

format:
	clang-format -i $$(find src tests bench -name '*.[ch]' ! -name '*.skel.h')

check: $(OUT)/iotrail
	cppcheck --quiet --enable=warning,performance,portability --inline-suppr \
		--suppress=missingIncludeSystem -Isrc -I$(OUT) --std=c11 \
		--error-exitcode=1 src/trace src/join src/analyze src/render src/util src/layout src/cli src/record src/frag src/diskmodel \
		src/serve src/import src/export src/stacks src/repair src/devstat src/marker

# man pages from the program's own --help (scripts/mkman.sh)
man: $(OUT)/iotrail
	scripts/mkman.sh $(OUT)/iotrail $(OUT)/man

# the binary; demo.sh where `iotrail demo` looks for it (BINDIR/../share/iotrail);
# a man page per subcommand; the docs
install: $(OUT)/iotrail man $(OUT)/libiotrail-marker.a $(OUT)/libiotrail-marker.so $(HDD)
	install -D -m 0755 $(OUT)/iotrail $(DESTDIR)$(PREFIX)/bin/iotrail
	$(if $(HDD),install -D -m 0755 $(HDD) $(DESTDIR)$(PREFIX)/bin/iotrail-hdd)
	install -D -m 0644 include/iotrail/marker.h $(DESTDIR)$(PREFIX)/include/iotrail/marker.h
	install -D -m 0644 $(OUT)/libiotrail-marker.a $(DESTDIR)$(PREFIX)/lib/libiotrail-marker.a
	install -D -m 0755 $(OUT)/libiotrail-marker.so $(DESTDIR)$(PREFIX)/lib/libiotrail-marker.so.1
	ln -sf libiotrail-marker.so.1 $(DESTDIR)$(PREFIX)/lib/libiotrail-marker.so
	install -D -m 0755 scripts/demo.sh $(DESTDIR)$(PREFIX)/share/iotrail/demo.sh
	install -D -m 0755 scripts/seed-write.sh $(DESTDIR)$(PREFIX)/share/iotrail/seed-write.sh
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/iotrail
	install -m 0644 $(OUT)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 README.md docs/ARCHITECTURE.md docs/FORMAT.md docs/ATTRIBUTION.md docs/STAT.md docs/MARKERS.md \
		$(DESTDIR)$(PREFIX)/share/doc/iotrail/

clean:
	rm -rf $(OUT)
