/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The release of pghot and pghotd: what --version prints and what the man
 * pages' footers say (.TH ... "PGHOT_DATE" "pghot PGHOT_VERSION"; the
 * generated pghot.conf(5) takes them from here, and tests/integration/
 * docs_current.sh checks the other pages). A release changes both.
 */
#ifndef PGHOT_CMD_COMMON_VERSION_H
#define PGHOT_CMD_COMMON_VERSION_H

#define PGHOT_VERSION "0.2"
#define PGHOT_DATE "2026-12-01"	/* of PGHOT_VERSION, YYYY-MM-DD */

#endif
