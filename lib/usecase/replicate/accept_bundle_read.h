/* SPDX-License-Identifier: Apache-2.0 */
/* accept_bundle_read: an acceptance bundle (accept_bundle.h writes it)
 * taken back apart into the directory replicate accept judges, and the
 * predicate types of the evidence it carries, which the writer uses too.
 * Apart from the writer so that replicate_accept, which unpacks a bundle
 * it is given, and accept_bundle, which writes its verdict, include no
 * circle. No global state. */
#ifndef EV_ACCEPT_BUNDLE_READ_H
#define EV_ACCEPT_BUNDLE_READ_H

#include "lib/core/status.h"

#define SEAL_TYPE "urn:evidence:seal:v1"
#define TIMESTAMP_TYPE "urn:evidence:rfc3161-timestamp:v1"
#define LOG_TYPE "urn:evidence:receipt-log:v1"
#define CHECKPOINT_TYPE "urn:evidence:cosigned-checkpoint:v1"

/* Unpack the evidence a bundle carries into dir (an empty directory):
 * receipts, the seal and its timestamp, and a log (dir/log) with its
 * cosigned checkpoints, laid out as replicate accept reads a directory.
 * Lines it does not know, and the verdicts (VSA, test results), are passed
 * by, as the bundle specification asks. @return EV_OK; EV_REFUSED (a line
 * that is not an envelope of a statement, named by its number); EV_ERROR. */
ev_status ev_accept_bundle_unpack(const char *bundle, const char *dir, struct ev_error *err);

#endif
