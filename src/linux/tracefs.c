// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefs: finding it, and an event's id and format (tracefs.h).
 */
#include "linux/tracefs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux/fsroot.h"
#include "linux/sysfs_io.h"

/* Candidate folders below the sysfs root, in perf's order of preference. */
static const char *const tracefs_dirs[] = {
	"kernel/tracing",
	"kernel/debug/tracing",
};

int tracefs_find(const char *sysfs_root, char *ret, size_t len)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char p[4096];
	size_t n = sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]);

	for (size_t i = 0; i < n; i++) {
		if (fsr_path(p, sizeof(p), root, "%s/events", tracefs_dirs[i]))
			return -ENAMETOOLONG;
		if (sysfs_is_dir(p))
			return fsr_path(ret, len, root, "%s", tracefs_dirs[i]);
	}
	if (fsr_path(ret, len, root, "%s", tracefs_dirs[0]))
		return -ENAMETOOLONG;
	return -ENOENT;
}

/* ---- the format file ---------------------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* A piece of the buffer: [p, e). */
struct span {
	const char *p, *e;
};

static struct span trim(struct span s)
{
	while (s.p < s.e && is_space(*s.p))
		s.p++;
	while (s.e > s.p && is_space(s.e[-1]))
		s.e--;
	return s;
}

/* Does @s start with @prefix? Then skip it. */
static bool eat(struct span *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if ((size_t)(s->e - s->p) < n || memcmp(s->p, prefix, n))
		return false;
	s->p += n;
	return true;
}

/* Is @s exactly @name? */
static bool is_key(struct span s, const char *name)
{
	size_t n = strlen(name);

	return (size_t)(s.e - s.p) == n && !memcmp(s.p, name, n);
}

static int copy_name(char *dst, struct span s)
{
	size_t n = (size_t)(s.e - s.p);

	if (n >= TRACEFS_NAME_MAX)
		return -E2BIG;
	memcpy(dst, s.p, n);
	dst[n] = '\0';
	return 0;
}

/* The name a C declaration declares: its last identifier, after any
 * array suffixes ("char comm[16]" -> comm). */
static int decl_name(struct span d, char *ret)
{
	struct span name;

	d = trim(d);
	while (d.e > d.p && d.e[-1] == ']') {
		const char *o = d.e - 1;

		while (o > d.p && *o != '[')
			o--;
		if (*o != '[')
			return -EBADMSG;
		d.e = o;
		d = trim(d);
	}
	name.e = d.e;
	name.p = d.e;
	while (name.p > d.p && is_ident(name.p[-1]))
		name.p--;
	if (name.p == name.e || (*name.p >= '0' && *name.p <= '9'))
		return -EBADMSG;
	return copy_name(ret, name);
}

/* The attributes after a field's declaration: "offset:N; size:N; signed:N;"
 * (any order; unknown ones are skipped). */
static int field_attrs(struct span s, struct tracefs_field *f)
{
	bool have_off = false, have_size = false, have_sign = false;

	for (;;) {
		const char *semi;
		struct span key, val;
		uint64_t v;

		s = trim(s);
		if (s.p == s.e)
			break;
		semi = memchr(s.p, ';', (size_t)(s.e - s.p));
		if (!semi)
			return -EBADMSG;
		key.p = s.p;
		key.e = memchr(s.p, ':', (size_t)(semi - s.p));
		s.p = semi + 1;
		if (!key.e)
			return -EBADMSG;
		val.p = key.e + 1;
		val.e = semi;
		if (sysfs_parse_u64(val.p, (size_t)(val.e - val.p), &v))
			return -EBADMSG;
		key = trim(key);
		if (is_key(key, "offset")) {
			if (v > UINT32_MAX)
				return -EBADMSG;
			f->offset = (uint32_t)v;
			have_off = true;
		} else if (is_key(key, "size")) {
			if (v > UINT32_MAX)
				return -EBADMSG;
			f->size = (uint32_t)v;
			have_size = true;
		} else if (is_key(key, "signed")) {
			if (v > 1)
				return -EBADMSG;
			f->is_signed = v == 1;
			have_sign = true;
		}
	}
	if (!have_off || !have_size || !have_sign)
		return -EBADMSG;
	if ((uint64_t)f->offset + f->size > UINT32_MAX)
		return -EBADMSG;
	return 0;
}

/* "field:DECL;<attrs>" or "field special:DECL;<attrs>" (old kernels). */
static int parse_field(struct span s, struct tracefs_event *ev)
{
	struct tracefs_field *f;
	const char *semi;
	int err;

	if (!eat(&s, "field:") && !eat(&s, "field special:"))
		return -EBADMSG;
	if (ev->nr_fields == TRACEFS_FIELDS_MAX)
		return -E2BIG;
	f = &ev->fields[ev->nr_fields];
	memset(f, 0, sizeof(*f));
	semi = memchr(s.p, ';', (size_t)(s.e - s.p));
	if (!semi)
		return -EBADMSG;
	err = decl_name((struct span){ s.p, semi }, f->name);
	if (!err)
		err = field_attrs((struct span){ semi + 1, s.e }, f);
	if (!err)
		ev->nr_fields++;
	return err;
}

static int parse_line(struct span l, struct tracefs_event *ev)
{
	uint64_t v;

	l = trim(l);
	if (eat(&l, "name:"))
		return copy_name(ev->name, trim(l));
	if (eat(&l, "ID:")) {
		if (sysfs_parse_u64(l.p, (size_t)(l.e - l.p), &v))
			return -EBADMSG;
		ev->id = v;
		ev->has_id = true;
		return 0;
	}
	if (l.e - l.p >= 5 && !memcmp(l.p, "field", 5))
		return parse_field(l, ev);
	return 0; /* "format:", "print fmt: ...", blank lines */
}

int tracefs_parse_format(const char *buf, size_t len, struct tracefs_event *ret)
{
	struct span rest = { buf, buf + len };

	memset(ret, 0, sizeof(*ret));
	while (rest.p < rest.e) {
		const char *nl = memchr(rest.p, '\n', (size_t)(rest.e - rest.p));
		struct span l = { rest.p, nl ? nl : rest.e };
		int err = parse_line(l, ret);

		if (err)
			return err;
		rest.p = nl ? nl + 1 : rest.e;
	}
	return ret->nr_fields ? 0 : -EBADMSG;
}

/* ---- one event ---------------------------------------------------------- */

int tracefs_read_event(const char *tracefs, const char *system,
		       const char *event, struct tracefs_event *ret)
{
	char idbuf[64], *fmt = NULL;
	size_t len;
	uint64_t id;
	int n, err;

	if (!fsr_exists(tracefs, "events/%s/%s", system, event))
		return -ENOENT;
	n = fsr_read(tracefs, idbuf, sizeof(idbuf), "events/%s/%s/id", system, event);
	if (n < 0)
		return n == -EFBIG ? -EBADMSG : n;
	if (sysfs_parse_u64(idbuf, (size_t)n, &id))
		return -EBADMSG;
	err = fsr_read_alloc(tracefs, TRACEFS_FORMAT_MAX, &fmt, &len, "events/%s/%s/format",
			     system, event);
	if (err)
		return err;
	err = tracefs_parse_format(fmt, len, ret);
	free(fmt);
	if (err)
		return err;
	if (ret->has_id && ret->id != id)
		return -EBADMSG;
	ret->id = id;
	ret->has_id = true;
	return 0;
}

const struct tracefs_field *tracefs_field(const struct tracefs_event *e,
					  const char *name)
{
	for (size_t i = 0; i < e->nr_fields; i++)
		if (!strcmp(e->fields[i].name, name))
			return &e->fields[i];
	return NULL;
}

int tracefs_field_get(const struct tracefs_field *f, const void *rec,
		      size_t len, uint64_t *ret)
{
	const uint8_t *p = (const uint8_t *)rec + f->offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return -EINVAL;
	if (f->offset > len || f->size > len - f->offset)
		return -EBADMSG;
	switch (f->size) {
	case 1:
		memcpy(&u8, p, 1);
		*ret = f->is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
		break;
	case 2:
		memcpy(&u16, p, 2);
		*ret = f->is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
		break;
	case 4:
		memcpy(&u32, p, 4);
		*ret = f->is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
		break;
	default:
		memcpy(&u64, p, 8);
		*ret = u64;
		break;
	}
	return 0;
}
