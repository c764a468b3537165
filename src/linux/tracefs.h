/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs: where the kernel describes its trace events, and the
 * description of one event: its id (the config of a PERF_TYPE_TRACEPOINT
 * perf event) and the layout of its record (the RAW payload of a perf
 * sample), read as perf does (tools/lib/api/fs/tracing_path.c finds the
 * folder, libtraceevent parses the format file).
 *
 * Where: <sysfs_root>/kernel/tracing (tracefs' own mount point since Linux
 * 4.1), else <sysfs_root>/kernel/debug/tracing (the kernel mounts tracefs
 * there by itself when debugfs is mounted). A folder counts as a mounted
 * tracefs when it has an events/ folder: an empty mount point has none.
 * Nothing here mounts anything.
 *
 * An event's format file (Documentation/trace/events.rst, "Event formats";
 * kernel/trace/trace_events.c, f_show()):
 *
 *   name: damon_aggregated
 *   ID: 1470
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...
 *
 *   	field:unsigned long target_id;	offset:8;	size:8;	signed:0;
 *   	...
 *
 *   print fmt: "target_id=%lu ...", REC->target_id, ...
 *
 * Each field line gives the C declaration (the name is its last
 * identifier: "char comm[16]" is comm, "__data_loc char[] name" is name),
 * the byte offset in the record, the size in bytes and whether the type
 * is signed. Records are in the machine's byte order.
 *
 * Errors are negative errnos; the parser is pure (buf, len), for the fuzz
 * target (tests/fuzz/fuzz_tracefs.c).
 */
#ifndef PGHOT_LINUX_TRACEFS_H
#define PGHOT_LINUX_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest event or field name kept (the kernel's are C identifiers). */
#define TRACEFS_NAME_MAX 64
/* Fields of one event kept; the kernel's events have a few dozen at most. */
#define TRACEFS_FIELDS_MAX 64
/* Largest format file read, bytes (a page or two in practice). */
#define TRACEFS_FORMAT_MAX 65536

struct tracefs_field {
	char name[TRACEFS_NAME_MAX];
	uint32_t offset;	/* bytes from the start of the record */
	uint32_t size;		/* bytes */
	bool is_signed;
};

struct tracefs_event {
	char name[TRACEFS_NAME_MAX];	/* "name:" line; "" if absent */
	uint64_t id;			/* "ID:" line, or the id file */
	bool has_id;
	size_t nr_fields;
	struct tracefs_field fields[TRACEFS_FIELDS_MAX];
};

/**
 * tracefs_find() - the folder of a mounted tracefs below @sysfs_root
 * ("/sys" if NULL): <root>/kernel/tracing, else <root>/kernel/debug/tracing.
 * @ret: receives the folder found; when neither is mounted, the first
 * one (for the message "tracefs not mounted at ...").
 * Return: 0; -ENOENT neither has an events/ folder; -ENAMETOOLONG.
 */
int tracefs_find(const char *sysfs_root, char *ret, size_t len);

/**
 * tracefs_parse_format() - parse the text of an event's format file.
 * @buf: @len bytes, need not be NUL-terminated.
 * @ret: filled on success (fields in file order); unspecified on error.
 * Lines other than "name:", "ID:" and field lines ("print fmt", "format:")
 * are skipped. A field line must carry offset, size and signed; its
 * offset + size must fit 32 bits.
 * Return: 0; -EBADMSG a malformed field or ID line, or no field at all;
 * -E2BIG more than TRACEFS_FIELDS_MAX fields or a name longer than
 * TRACEFS_NAME_MAX - 1.
 */
int tracefs_parse_format(const char *buf, size_t len, struct tracefs_event *ret);

/**
 * tracefs_read_event() - the id and format of event @system:@event under
 * tracefs folder @tracefs (from tracefs_find()): events/SYSTEM/EVENT/id and
 * .../format. The id file decides the id; a format file whose ID line says
 * otherwise is -EBADMSG.
 * Return: 0; -ENOENT the kernel has no such event (the folder is missing);
 * -EACCES/-EPERM tracefs is not readable (it is root's by default);
 * -EBADMSG/-E2BIG as tracefs_parse_format(), or an id file that is not a
 * number; -EFBIG a format file over TRACEFS_FORMAT_MAX; -ENAMETOOLONG;
 * -ENOMEM; or the errno of a read.
 */
int tracefs_read_event(const char *tracefs, const char *system,
		       const char *event, struct tracefs_event *ret);

/** tracefs_field() - the field of @e named @name, or NULL. */
const struct tracefs_field *tracefs_field(const struct tracefs_event *e,
					  const char *name);

/**
 * tracefs_field_get() - the value of integer field @f in record @rec
 * (@len bytes, e.g. a perf sample's RAW payload), sign-extended when the
 * field is signed.
 * Return: 0; -EINVAL a size other than 1, 2, 4 or 8; -EBADMSG the field
 * lies (partly) beyond @len.
 */
int tracefs_field_get(const struct tracefs_field *f, const void *rec,
		      size_t len, uint64_t *ret);

#endif /* PGHOT_LINUX_TRACEFS_H */
