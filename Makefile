# pghot: the stable front door. Sources are found by directory, so adding a
# file needs no edit here:
#   src/lib/*.c          -> libpghot (static + shared, pkg-config)
#   src/core/*.c         -> the pipeline, pghotd's policy (internal static library)
#   src/sim/*.c          -> the simulator's model (internal static library)
#   src/linux/*.c        -> the Linux backend (internal static library)
#   src/cmd/common/*.c   -> code shared by pghotd and pghot
#   src/cmd/pghotd/*.c   -> build/bin/pghotd
#   src/cmd/pghot/*.c    -> build/bin/pghot
#   tests/unit/test_*.c  -> one cmocka binary each
#   tests/integration/*.sh, tests/vm/smoke.sh  -> run by `make check`
#   tests/fuzz/fuzz_*.c  -> libFuzzer targets (clang), corpus replay (gcc)
#   bench/bench_*.c      -> `make bench-NAME`
#
# make            build everything into build/
# make check      every test (unit, integration, fuzz corpus replay, VM smoke)
# make check-san  unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
# make soak       pghotd under ASan+UBSan for SOAK_SECONDS (default 600) against
#                 churning processes (tests/soak/soak.sh); not part of check
# make bench      every benchmark;  make bench-engine  one of them
# make demo       the test bed: promote scenario, five cases (REPEAT=N: N runs each)
# make demo-all   every scenario, every case (REPEAT=N: N runs each)
# make tables     rewrite the generated tables of README.md and docs/testbed.md
#                 from build/demo/results.json
# make fuzz       run each fuzz target for FUZZ_SECONDS (default 20) or
#                 FUZZ_RUNS inputs; prints each target's inputs run and result

BUILD ?= build
# make install: PREFIX for programs, library, man pages and the systemd
# unit; SYSCONFDIR for /etc/pghot/pghot.conf (not under PREFIX: the unit
# and the docs name /etc/pghot); DESTDIR to stage it all in another tree.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
CC ?= cc
SAN ?= 0
PKGS := inih numa libcjson libsystemd

ifeq ($(SAN),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1
else
OPT := -O2
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter
# CFLAGS is the user's (optimisation, extra instrumentation); what the build
# needs is in ALL_CFLAGS, so `make CFLAGS=...` cannot drop the include paths.
CFLAGS ?= $(OPT) -g
ALL_CFLAGS = $(CFLAGS) -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -fPIC $(WARN) $(SANFLAGS) -MMD -MP
LDFLAGS += $(SANFLAGS)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

LIB_SRCS := $(wildcard src/lib/*.c)
CORE_SRCS := $(wildcard src/core/*.c)
SIM_SRCS := $(wildcard src/sim/*.c)
LINUX_SRCS := $(wildcard src/linux/*.c)
COMMON_SRCS := $(wildcard src/cmd/common/*.c)
PGHOTD_SRCS := $(wildcard src/cmd/pghotd/*.c)
PGHOT_SRCS := $(wildcard src/cmd/pghot/*.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRCS := $(wildcard bench/bench_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJS := $(call obj,$(LIB_SRCS))
CORE_OBJS := $(call obj,$(CORE_SRCS))
SIM_OBJS := $(call obj,$(SIM_SRCS))
LINUX_OBJS := $(call obj,$(LINUX_SRCS) $(COMMON_SRCS))

LIBA := $(BUILD)/lib/libpghot.a
LIBSO := $(BUILD)/lib/libpghot.so.0
LINUXA := $(BUILD)/lib/libpghot-linux.a
COREA := $(BUILD)/lib/libpghot-core.a
SIMA := $(BUILD)/lib/libpghot-sim.a
# pghotd without main(), for tests that drive the daemon
PGHOTDA := $(BUILD)/lib/libpghotd.a
PGHOTD_LIB_OBJS := $(call obj,$(filter-out src/cmd/pghotd/main.c,$(PGHOTD_SRCS)))
# What pghotd, pghot, the tests and the benchmarks link, in link order.
INTERNAL_LIBS := $(LINUXA) $(SIMA) $(COREA) $(LIBA)
PC := $(BUILD)/lib/pkgconfig/libpghot.pc
BINS := $(if $(PGHOTD_SRCS),$(BUILD)/bin/pghotd) $(if $(PGHOT_SRCS),$(BUILD)/bin/pghot)
UNITS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
BENCHES := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))
FUZZ_REPLAY := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%-replay,$(FUZZ_SRCS))

.PHONY: all deps deps-check check check-unit check-integration check-fuzz check-vm check-san soak \
	bench demo demo-all tables fuzz clean install uninstall FORCE
all: deps-check $(LIBA) $(LIBSO) $(PC) $(BINS) $(UNITS) $(BENCHES) $(FUZZ_REPLAY)

# Objects of tests and benchmarks are intermediates of a single rule each;
# keep them so that `make check` after `make demo` does not rebuild them.
.SECONDARY:

deps:
	@scripts/install-deps build
# Plain `make` installs nothing: it says what is missing and how to get it.
deps-check:
	@scripts/install-deps --check build

$(BUILD)/obj/src/linux/%.o $(BUILD)/obj/src/cmd/%.o: ALL_CFLAGS += $(PKG_CFLAGS)
# Where make install puts the config, for pghotd's help and messages: a
# header rewritten only when SYSCONFDIR changes, so that its users rebuild.
$(BUILD)/obj/src/cmd/%.o: ALL_CFLAGS += -I$(BUILD)/gen
$(call obj,$(COMMON_SRCS) $(PGHOTD_SRCS) $(PGHOT_SRCS)): | $(BUILD)/gen/pghot_paths.h
$(BUILD)/gen/pghot_paths.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define PGHOT_SYSCONFDIR "%s"\n' '$(SYSCONFDIR)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The engine: hidden symbols, only PGHOT_API exported.
$(BUILD)/obj/src/lib/%.o: ALL_CFLAGS += -fvisibility=hidden
$(LIBA): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBSO): $(LIB_OBJS) src/lib/libpghot.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpghot.so.0 -Wl,--version-script=src/lib/libpghot.map \
		$(LDFLAGS) -o $@ $(LIB_OBJS)
	ln -sf libpghot.so.0 $(BUILD)/lib/libpghot.so
$(LINUXA): $(LINUX_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(COREA): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(SIMA): $(SIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(PGHOTDA): $(PGHOTD_LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(PC): packaging/libpghot.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(CURDIR)/$(BUILD)|' -e 's|^includedir=.*|includedir=$(CURDIR)/include|' $< > $@

$(BUILD)/bin/pghotd: $(call obj,$(PGHOTD_SRCS)) $(INTERNAL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm
$(BUILD)/bin/pghot: $(call obj,$(PGHOT_SRCS)) $(INTERNAL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

$(BUILD)/obj/tests/%.o $(BUILD)/obj/bench/%.o: ALL_CFLAGS += $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null)
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(PGHOTDA) $(INTERNAL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(shell pkg-config --libs cmocka) -lpthread -lm
$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(INTERNAL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm
# Fuzz targets replayed over their corpus with a small driver (any compiler).
$(BUILD)/fuzz/%-replay: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay_main.o $(INTERNAL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm
$(BUILD)/obj/tests/fuzz/replay_main.o: tests/fuzz/replay_main.inc
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -x c -c $< -o $@

check:
	@scripts/install-deps all
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-unit check-integration check-fuzz check-vm

check-unit: $(UNITS)
	@scripts/run-tests $(UNITS)

check-integration: $(BINS) $(LIBSO) $(PC)
	@scripts/run-tests --sh $(wildcard tests/integration/*.sh)

check-fuzz: $(FUZZ_REPLAY)
	@for f in $(FUZZ_REPLAY); do n=$$(basename $$f -replay); \
		$$f tests/fuzz/corpus/$${n#fuzz_} || exit 1; done

# The test bed: the promote smoke test, and the hwhint proof in the guest.
# Each exits 77 (a skip) only when QEMU or the kernel is missing.
check-vm: all
	@rc=0; for t in tests/vm/smoke.sh tests/vm/hwhint.sh; do \
		$$t; r=$$?; [ $$r -eq 0 ] || [ $$r -eq 77 ] || rc=1; done; exit $$rc

check-san:
	$(MAKE) SAN=1 check-unit check-fuzz

SOAK_SECONDS ?= 600
soak:
	@$(MAKE) --no-print-directory SAN=1 build-san/bin/pghotd build-san/bin/pghot
	tests/soak/soak.sh $(SOAK_SECONDS)

bench: deps $(BENCHES)
	@for b in $(BENCHES); do echo "== $$(basename $$b)"; $$b || exit 1; done
bench-%: deps $(BUILD)/bench/bench_%
	$(BUILD)/bench/bench_$*

REPEAT ?= 1
demo:
	@scripts/install-deps vm
	@$(MAKE) --no-print-directory all
	tools/vm/demo.sh --repeat $(REPEAT) promote
demo-all:
	@scripts/install-deps vm
	@$(MAKE) --no-print-directory all
	tools/vm/demo.sh --repeat $(REPEAT) --all
tables:
	tools/vm/tables.sh --update README.md docs/testbed.md
	@# its figures without the timelines and per-run counters, for scripts/sim-tables
	jq -c 'del(.scenarios[].cases[].repeats[] | .timeline, .pghotd, .vmstat, .damon)' \
		build/demo/results.json > docs/testbed-results.json

# The man page generated from the config table, and the counter table of
# docs/counters.md from the code's (both checked by make check).
docs/pghot.conf.5: $(BUILD)/bin/pghotd FORCE
	$(BUILD)/bin/pghotd --dump-config-man > $@
docs/counters.md: $(BUILD)/bin/pghotd FORCE
	scripts/splice-block docs/counters.md "pghotd --dump-counters-md" $(BUILD)/bin/pghotd --dump-counters-md

FUZZ_SECONDS ?= 20
FUZZ_RUNS ?=
fuzz:
	@scripts/fuzz $(FUZZ_SECONDS) $(FUZZ_RUNS)

# make install [PREFIX=/usr/local] [SYSCONFDIR=/etc] [DESTDIR=]: library,
# header, pkg-config file, binaries, man pages, the systemd unit (in
# UNITDIR, PREFIX/lib/systemd/system) and a commented SYSCONFDIR/pghot/
# pghot.conf, which is never overwritten (the new one goes to the doc
# folder as pghot.conf.example either way). make uninstall removes it all
# but a config that was changed.
ETC := $(DESTDIR)$(SYSCONFDIR)/pghot
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/pghot
install: all
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/pghot \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(UNITDIR) $(DOCDIR) $(ETC)
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libpghot.so.0 $(DESTDIR)$(PREFIX)/lib/libpghot.so
	sed -e 's|@PREFIX@|$(PREFIX)|' packaging/libpghot.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libpghot.pc
	install -m 644 include/pghot/pghot.h $(DESTDIR)$(PREFIX)/include/pghot/
	install -m 755 $(BUILD)/bin/pghot $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(BUILD)/bin/pghotd $(DESTDIR)$(PREFIX)/sbin/
	install -m 644 docs/pghot.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/pghot.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 docs/pghotd.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	sed -e 's|/usr/local/sbin/pghotd|$(PREFIX)/sbin/pghotd|g' -e 's|/etc/pghot/|$(SYSCONFDIR)/pghot/|g' \
		-e 's|/usr/local/lib/systemd/system (PREFIX/lib/systemd/system|$(UNITDIR) (UNITDIR|' \
		packaging/pghotd.service > $(DESTDIR)$(UNITDIR)/pghotd.service
	install -m 644 packaging/pghot.conf $(DOCDIR)/pghot.conf.example
	@if [ -e $(ETC)/pghot.conf ]; then \
		echo "install: keeping $(ETC)/pghot.conf (the new example: $(DOCDIR)/pghot.conf.example)"; \
	else \
		echo "install -m 644 packaging/pghot.conf $(ETC)/pghot.conf"; \
		install -m 644 packaging/pghot.conf $(ETC)/pghot.conf; \
	fi
	install -d $(DESTDIR)$(PREFIX)/share/pghot/scenarios
	install -m 644 scenarios/*.scn $(DESTDIR)$(PREFIX)/share/pghot/scenarios/
	@echo "installed; next: name a target in $(SYSCONFDIR)/pghot/pghot.conf ([targets]), then"
	@echo "  pghotd --check-config $(SYSCONFDIR)/pghot/pghot.conf && systemctl daemon-reload && systemctl enable --now pghotd"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libpghot.a $(DESTDIR)$(PREFIX)/lib/libpghot.so.0 \
		$(DESTDIR)$(PREFIX)/lib/libpghot.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/libpghot.pc \
		$(DESTDIR)$(PREFIX)/include/pghot/pghot.h $(DESTDIR)$(PREFIX)/bin/pghot \
		$(DESTDIR)$(PREFIX)/sbin/pghotd $(DESTDIR)$(PREFIX)/share/man/man1/pghot.1 \
		$(DESTDIR)$(PREFIX)/share/man/man5/pghot.conf.5 $(DESTDIR)$(PREFIX)/share/man/man8/pghotd.8 \
		$(DESTDIR)$(UNITDIR)/pghotd.service $(DOCDIR)/pghot.conf.example \
		$(DESTDIR)$(PREFIX)/share/pghot/scenarios/*.scn
	-rmdir $(DESTDIR)$(PREFIX)/include/pghot $(DESTDIR)$(PREFIX)/share/pghot/scenarios \
		$(DESTDIR)$(PREFIX)/share/pghot $(DOCDIR) 2>/dev/null
	@if cmp -s packaging/pghot.conf $(ETC)/pghot.conf; then rm -f $(ETC)/pghot.conf; rmdir $(ETC) 2>/dev/null; \
	elif [ -e $(ETC)/pghot.conf ]; then echo "uninstall: keeping $(ETC)/pghot.conf (changed)"; fi

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
