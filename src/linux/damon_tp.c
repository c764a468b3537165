// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_tp: the damon_aggregated record's layout and decoding, and the
 * history of target orders (damon_tp.h). Pure: no system call here; the
 * events and rings are in damon_tp_ring.c.
 */
#include "linux/damon_tp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool int_size(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static int want_field(const struct tracefs_event *ev, const char *name,
		      struct tracefs_field *ret, char *why, size_t len)
{
	const struct tracefs_field *f = tracefs_field(ev, name);

	if (!f) {
		snprintf(why, len, "no field %s", name);
		return -ENOENT;
	}
	if (!int_size(f->size)) {
		snprintf(why, len, "field %s is %u bytes, not an integer", name, f->size);
		return -EINVAL;
	}
	*ret = *f;
	return 0;
}

int damon_tp_fmt_from_event(const struct tracefs_event *ev,
			    struct damon_tp_fmt *ret, char *why, size_t len)
{
	const struct tracefs_field *ct = tracefs_field(ev, "common_type");
	int err;

	memset(ret, 0, sizeof(*ret));
	ret->id = ev->id;
	if (ct && int_size(ct->size))
		ret->common_type = *ct;
	err = want_field(ev, "target_id", &ret->target_id, why, len);
	if (!err)
		err = want_field(ev, "nr_regions", &ret->nr_regions, why, len);
	if (!err)
		err = want_field(ev, "start", &ret->start, why, len);
	if (!err)
		err = want_field(ev, "end", &ret->end, why, len);
	if (!err)
		err = want_field(ev, "nr_accesses", &ret->nr_accesses, why, len);
	if (!err)
		err = want_field(ev, "age", &ret->age, why, len);
	return err;
}

/* A field that must fit 32 bits (the kernel keeps them as unsigned int). */
static int get32(const struct tracefs_field *f, const void *raw, size_t len,
		 uint32_t *ret)
{
	uint64_t v;

	if (tracefs_field_get(f, raw, len, &v) || v > UINT32_MAX)
		return -EBADMSG;
	*ret = (uint32_t)v;
	return 0;
}

int damon_tp_decode(const struct damon_tp_fmt *f, const void *raw, size_t len,
		    struct damon_tp_rec *ret)
{
	uint64_t type;

	if (f->common_type.size &&
	    (tracefs_field_get(&f->common_type, raw, len, &type) || type != f->id))
		return -EBADMSG;
	if (tracefs_field_get(&f->target_id, raw, len, &ret->target_id) ||
	    tracefs_field_get(&f->start, raw, len, &ret->r.start) ||
	    tracefs_field_get(&f->end, raw, len, &ret->r.end) ||
	    get32(&f->nr_regions, raw, len, &ret->nr_regions) ||
	    get32(&f->nr_accesses, raw, len, &ret->r.nr_accesses) ||
	    get32(&f->age, raw, len, &ret->r.age))
		return -EBADMSG;
	return ret->r.start < ret->r.end ? 0 : -EBADMSG;
}

/* ---- target orders ------------------------------------------------------ */

void damon_orders_push(struct damon_orders *h, uint64_t from_ns,
		       uint64_t sure_ns, const pid_t *pids, size_t n)
{
	struct damon_order *o = &h->o[h->count % DAMON_ORDERS_MAX];

	if (n > DAMON_MAX_TARGETS)
		n = DAMON_MAX_TARGETS;
	o->from_ns = from_ns;
	o->sure_ns = sure_ns > from_ns ? sure_ns : from_ns;
	o->n = n;
	memcpy(o->pid, pids, n * sizeof(pids[0]));
	h->count++;
}

static pid_t order_pid(const struct damon_order *o, uint64_t id)
{
	return id < o->n ? o->pid[id] : 0;
}

pid_t damon_orders_pid(const struct damon_orders *h, uint64_t t_ns,
		       uint64_t target_id)
{
	uint64_t kept = h->count < DAMON_ORDERS_MAX ? h->count : DAMON_ORDERS_MAX;

	for (uint64_t k = 0; k < kept; k++) {
		uint64_t i = h->count - 1 - k;
		const struct damon_order *o = &h->o[i % DAMON_ORDERS_MAX];
		pid_t now, before;

		if (o->from_ns > t_ns)
			continue;
		now = order_pid(o, target_id);
		/* surely this order; or the first ever: no target before */
		if (t_ns >= o->sure_ns || i == 0)
			return now;
		if (k + 1 == kept)
			return 0; /* the order before is forgotten */
		before = order_pid(&h->o[(i - 1) % DAMON_ORDERS_MAX], target_id);
		if (!before || before == now)
			return now;
		return now ? 0 : before;
	}
	return 0;
}
