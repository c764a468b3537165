// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the perf ring reader and record decoder. The input is
 *   u64 sample_type, u64 read_format, u64 branch_sample_type,
 *   u64 regs masks (low/high 32 bits: user/intr), u64 tail, then the data
 *   area (padded with zeros to a power of two); data_head is tail + the
 *   data's length, so records straddle the end wherever the tail says.
 * Every record handed out must lie within the ring's bytes; every pointer
 * a decoded sample carries must lie within its record.
 * Corpus: tests/fuzz/corpus/perf_ring/ (made by tests/fuzz/mkcorpus_perf_ring.py).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/perf_ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page meta;
	const struct perf_event_header *h;
	struct perf_rec_format f;
	struct perf_ring ring;
	uint64_t hdr[5], ring_size = 8;
	size_t n, len;
	uint8_t *area;

	if (size < sizeof(hdr))
		return 0;
	memcpy(hdr, data, sizeof(hdr));
	data += sizeof(hdr);
	size -= sizeof(hdr);
	if (size > 1 << 16)
		return 0;
	while (ring_size < size)
		ring_size <<= 1;
	area = calloc(1, ring_size);
	if (!area)
		return 0;
	memset(&meta, 0, sizeof(meta));
	f = (struct perf_rec_format){
		.sample_type = hdr[0], .read_format = hdr[1],
		.branch_sample_type = hdr[2],
		.sample_regs_user = (uint32_t)hdr[3], .sample_regs_intr = hdr[3] >> 32,
	};
	/* the data goes in at the tail's offset, wrapping, as the kernel
	 * would have written it */
	for (size_t i = 0; i < size; i++)
		area[(hdr[4] + i) & (ring_size - 1)] = data[i];
	meta.data_tail = hdr[4];
	meta.data_head = hdr[4] + size;
	if (perf_ring_attach(&ring, &meta, area, ring_size)) {
		free(area);
		return 0;
	}
	perf_ring_begin(&ring);
	for (n = 0; (h = perf_ring_next(&ring, &len)); n++) {
		const uint8_t *lo = (const uint8_t *)h, *hi = lo + len;
		struct perf_rec r;

		if (len < 8 || (len & 7) || len > size || len != h->size)
			__builtin_trap();
		if (perf_rec_decode(h, len, &f, &r) || r.kind != PERF_REC_SAMPLE)
			continue;
		if (r.sample.raw && ((const uint8_t *)r.sample.raw < lo ||
				     (const uint8_t *)r.sample.raw + r.sample.raw_size > hi))
			__builtin_trap();
		if (r.sample.callchain &&
		    ((const uint8_t *)r.sample.callchain < lo ||
		     r.sample.callchain_nr > (uint64_t)(hi - (const uint8_t *)r.sample.callchain) / 8))
			__builtin_trap();
	}
	perf_ring_end(&ring);
	if (meta.data_tail != meta.data_head)
		__builtin_trap();
	perf_ring_unmap(&ring);
	free(area);
	return 0;
}
