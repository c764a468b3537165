/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The damon:damon_aggregated tracepoint without a kernel, for tests: the
 * format file of Debian 13's 6.12 kernel (as the QEMU guest shows it, but
 * for the ID, which is 734 there and depends on the kernel's build), a
 * fake tracefs tree holding it, damon_aggregated samples built by hand,
 * and an open hook (damon_tp_set_open_hook()) that hands the source a
 * synthetic ring the test writes into with perf_ring_write().
 */
#ifndef PGHOT_TESTS_DAMON_TP_FAKE_H
#define PGHOT_TESTS_DAMON_TP_FAKE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/damon_tp.h"
#include "linux/perf_ring.h"
#include "rec_build.h"

/* The id the fake trees give the event. */
#define TP_FAKE_ID 1470

/* /sys/kernel/tracing/events/damon/damon_aggregated/format of 6.12 */
#define TP_FAKE_FORMAT_612                                                            \
	"name: damon_aggregated\n"                                                    \
	"ID: 1470\n"                                                                  \
	"format:\n"                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"        \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"        \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                    \
	"\n"                                                                          \
	"\tfield:unsigned long target_id;\toffset:8;\tsize:8;\tsigned:0;\n"           \
	"\tfield:unsigned int nr_regions;\toffset:16;\tsize:4;\tsigned:0;\n"          \
	"\tfield:unsigned long start;\toffset:24;\tsize:8;\tsigned:0;\n"              \
	"\tfield:unsigned long end;\toffset:32;\tsize:8;\tsigned:0;\n"                \
	"\tfield:unsigned int nr_accesses;\toffset:40;\tsize:4;\tsigned:0;\n"         \
	"\tfield:unsigned int age;\toffset:44;\tsize:4;\tsigned:0;\n"                 \
	"\n"                                                                          \
	"print fmt: \"target_id=%lu nr_regions=%u %lu-%lu: %u %u\", REC->target_id, " \
	"REC->nr_regions, REC->start, REC->end, REC->nr_accesses, REC->age\n"

static inline void tp_fake_mkdirs(const char *path)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", path);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		mkdir(p, 0755);
		*c = '/';
	}
	mkdir(p, 0755);
}

static inline int tp_fake_write(const char *dir, const char *name, const char *text)
{
	char p[4096];
	FILE *f;

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	f = fopen(p, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	fclose(f);
	return 0;
}

/* <sysfs_root>/@sub/events/damon/damon_aggregated with @format (NULL: no
 * event, only the events/ folder) and the id file. */
static inline int tp_fake_tree(const char *sysfs_root, const char *sub,
			       const char *format)
{
	char d[4096];

	if (!format) {
		if (snprintf(d, sizeof(d), "%s/%s/events", sysfs_root, sub) >= (int)sizeof(d))
			return -ENAMETOOLONG;
		tp_fake_mkdirs(d);
		return 0;
	}
	if (snprintf(d, sizeof(d), "%s/%s/events/damon/damon_aggregated", sysfs_root,
		     sub) >= (int)sizeof(d))
		return -ENAMETOOLONG;
	tp_fake_mkdirs(d);
	if (tp_fake_write(d, "format", format))
		return -EIO;
	return tp_fake_write(d, "id", "1470\n");
}

static inline uint64_t tp_fake_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The RAW payload of one damon_aggregated record, the 6.12 layout. */
static inline void tp_fake_raw(uint8_t raw[48], uint16_t type, uint32_t tid,
			       uint64_t target_id, uint32_t nr_regions, uint64_t start,
			       uint64_t end, uint32_t nr_accesses, uint32_t age)
{
	memset(raw, 0, 48);
	memcpy(raw + 0, &type, 2);
	memcpy(raw + 4, &tid, 4);
	memcpy(raw + 8, &target_id, 8);
	memcpy(raw + 16, &nr_regions, 4);
	memcpy(raw + 24, &start, 8);
	memcpy(raw + 32, &end, 8);
	memcpy(raw + 40, &nr_accesses, 4);
	memcpy(raw + 44, &age, 4);
}

/* A damon_aggregated sample (TID|TIME|RAW) from kdamond @tid at @time_ns. */
static inline void rb_damon_sample(struct rec_build *rb, uint32_t tid, uint64_t time_ns,
				   uint64_t target_id, uint32_t nr_regions, uint64_t start,
				   uint64_t end, uint32_t nr_accesses, uint32_t age)
{
	uint8_t raw[48];

	tp_fake_raw(raw, TP_FAKE_ID, tid, target_id, nr_regions, start, end, nr_accesses, age);
	rb_init(rb, PERF_RECORD_SAMPLE);
	rb_32x2(rb, tid, tid);
	rb_64(rb, time_ns);
	rb_raw(rb, raw, sizeof(raw));
	rb_done(rb);
}

/* PERF_RECORD_LOST: @n records dropped. */
static inline void rb_lost(struct rec_build *rb, uint64_t n)
{
	rb_init(rb, PERF_RECORD_LOST);
	rb_64(rb, 1);	/* id */
	rb_64(rb, n);
	rb_done(rb);
}

/* The synthetic event the open hook hands out. */
#define TP_FAKE_RING (64 * 1024)

struct tp_fake {
	struct perf_event_mmap_page meta;	/* the current event's ring */
	uint8_t *data;
	struct perf_ring w;			/* the test's (writer's) view */
	bool have_w;
	int hup_fd;		/* write end of the pipe handed out; -1 */
	struct perf_event_mmap_page pmeta;	/* the probe's ring */
	uint8_t pdata[4096];
	struct perf_event_attr attr;	/* of the last open */
	pid_t pid;		/* thread of the last event */
	int opens, probes;
	int fail_probe;		/* the probe fails with this errno (< 0) */
	int fail_open;		/* opens on a kdamond fail with this */
};

static inline int tp_fake_open(void *arg, pid_t pid, const struct perf_event_attr *a,
			       unsigned int pages, struct perf_ring *ring, int *ret_fd)
{
	struct tp_fake *f = arg;
	int p[2];

	f->attr = *a;
	*ret_fd = -1;
	if (!pid) {
		f->probes++;
		if (f->fail_probe)
			return f->fail_probe;
		memset(&f->pmeta, 0, sizeof(f->pmeta));
		return perf_ring_attach(ring, &f->pmeta, f->pdata, sizeof(f->pdata));
	}
	if (f->fail_open)
		return f->fail_open;
	if (f->have_w)
		perf_ring_unmap(&f->w);
	if (f->hup_fd >= 0)
		close(f->hup_fd);
	f->have_w = false;
	f->hup_fd = -1;
	memset(&f->meta, 0, sizeof(f->meta));
	memset(f->data, 0, TP_FAKE_RING);
	if (perf_ring_attach(&f->w, &f->meta, f->data, TP_FAKE_RING) ||
	    perf_ring_attach(ring, &f->meta, f->data, TP_FAKE_RING))
		return -ENOMEM;
	if (pipe(p)) {
		perf_ring_unmap(ring);
		return -errno;
	}
	f->have_w = true;
	f->hup_fd = p[1];
	*ret_fd = p[0];
	f->pid = pid;
	f->opens++;
	return 0;
}

static inline void tp_fake_init(struct tp_fake *f)
{
	memset(f, 0, sizeof(*f));
	f->hup_fd = -1;
	f->data = calloc(1, TP_FAKE_RING);
	damon_tp_set_open_hook(tp_fake_open, f);
}

static inline void tp_fake_free(struct tp_fake *f)
{
	damon_tp_set_open_hook(NULL, NULL);
	if (f->have_w)
		perf_ring_unmap(&f->w);
	if (f->hup_fd >= 0)
		close(f->hup_fd);
	free(f->data);
}

/* The kdamond exits: its event hangs up. */
static inline void tp_fake_hangup(struct tp_fake *f)
{
	if (f->hup_fd >= 0)
		close(f->hup_fd);
	f->hup_fd = -1;
}

/* Append a record to the current event's ring. Return: 0 or -ENOSPC. */
static inline int tp_fake_put(struct tp_fake *f, const struct rec_build *rb)
{
	return f->have_w ? perf_ring_write(&f->w, &rb->h) : -ENODEV;
}

/* One region of target @target_id of kdamond f->pid, now. */
static inline int tp_fake_region(struct tp_fake *f, uint64_t target_id, uint64_t start,
				 uint64_t end, uint32_t nr_accesses, uint32_t age)
{
	struct rec_build rb;

	rb_damon_sample(&rb, (uint32_t)f->pid, tp_fake_now_ns(), target_id, 3, start, end,
			nr_accesses, age);
	return tp_fake_put(f, &rb);
}

#endif
