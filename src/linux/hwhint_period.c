// SPDX-License-Identifier: GPL-2.0-or-later
/* Adaptive sample period and the recently-seen page table (hwhint_period.h). */
#include <string.h>

#include "linux/hwhint_period.h"

uint64_t hwp_clamp(const struct hwp_params *p, uint64_t period)
{
	uint64_t a = p->align ? p->align : 1;
	uint64_t lo = (p->period_min + a - 1) / a * a, hi = p->period_max / a * a;

	if (lo < a)
		lo = a;
	if (hi < lo)
		hi = lo;
	period = period / a * a;
	return period < lo ? lo : period > hi ? hi : period;
}

bool hwp_update(const struct hwp_params *p, struct hwp_state *s,
		const struct hwp_input *in)
{
	uint64_t old = s->period, ms = in->elapsed_ms ? in->elapsed_ms : 1;
	/* per second and per mille, in integers: no float in the rule */
	uint64_t new_per_s = in->new_lower_pages * 1000 / ms;
	uint64_t share_pm = in->samples ? in->lower_samples * 1000 / in->samples : 0;

	if (in->throttles) {
		s->calm = 0;
		s->period = hwp_clamp(p, old > UINT64_MAX / 2 ? old : old * 2);
	} else if (new_per_s >= p->new_hi || (in->samples && share_pm >= p->share_hi_pm)) {
		s->calm = 0;
		s->period = hwp_clamp(p, old / 2);
	} else if (new_per_s < p->new_lo && share_pm < p->share_lo_pm) {
		if (++s->calm >= (p->calm_intervals ? p->calm_intervals : 1)) {
			s->calm = 0;
			s->period = hwp_clamp(p, old > UINT64_MAX / 2 ? old : old * 2);
		}
	} else {
		s->calm = 0;
	}
	return s->period != old;
}

void hwp_seen_init(struct hwp_seen *t, uint32_t window)
{
	memset(t->pfn, 0, sizeof(t->pfn));
	memset(t->epoch, 0, sizeof(t->epoch));
	t->window = window ? window : 1;
}

static inline uint32_t slot_of(uint64_t pfn)
{
	/* Fibonacci hashing: neighbouring PFNs spread over the table */
	return (uint32_t)((pfn * 0x9e3779b97f4a7c15ULL) >> 49) & (HWP_SEEN_SLOTS - 1);
}

bool hwp_seen_add(struct hwp_seen *t, uint64_t pfn, uint32_t epoch)
{
	uint32_t i = slot_of(pfn), victim = i, oldest = UINT32_MAX;
	uint64_t key = pfn + 1;

	for (uint32_t n = 0; n < HWP_SEEN_PROBE; n++, i = (i + 1) & (HWP_SEEN_SLOTS - 1)) {
		uint32_t age;

		if (t->pfn[i] == key) {
			bool fresh = epoch - t->epoch[i] <= t->window;

			t->epoch[i] = epoch;
			return !fresh;
		}
		if (!t->pfn[i]) {
			victim = i;
			break;
		}
		age = epoch - t->epoch[i];
		if (oldest == UINT32_MAX || age > oldest) {
			oldest = age;
			victim = i;
		}
	}
	t->pfn[victim] = key;
	t->epoch[victim] = epoch;
	return true;
}
