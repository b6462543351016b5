// A crash that loses the last records a broker had not flushed (`crash.unflushed`), on a
// real broker: a killed process leaves its writes in the page cache, so after SIGKILL the
// oracle cuts the partition's log back by hand, as a power cut would have.
//
// The partition's segment files hold record batches (format v2): baseOffset (8 bytes),
// batchLength (4), then batchLength bytes, of which lastOffsetDelta sits 11 bytes into the
// batch's remainder (partitionLeaderEpoch 4, magic 1, crc 4, attributes 2). The log is cut at
// the first batch that holds one of the last `n` records (a batch is written whole or not at
// all); later segments go. The cut segment's index files are deleted, which makes Kafka recover
// that segment on load and rebuild them (`LogLoader`: a missing index is a segment to recover);
// producer-state snapshots past the new end go too. The HW, recovery-point and leader-epoch
// checkpoints may then point past the log's end: Kafka clamps each of them at load, as after a
// real power cut.

import { closeSync, ftruncateSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The batches of one segment file: [{ position, base, last }]. */
export function batchesOf(buf) {
  const out = [];
  let pos = 0;
  while (pos + 12 <= buf.length) {
    const base = Number(buf.readBigInt64BE(pos));
    const length = buf.readInt32BE(pos + 8);
    if (length <= 0 || pos + 12 + length > buf.length) break; // a torn tail: ends the log
    const last = base + buf.readInt32BE(pos + 12 + 11);
    out.push({ position: pos, base, last });
    pos += 12 + length;
  }
  return out;
}

/** Cuts partition directory `dir` so that its last `n` records are gone. Returns
 *  { leo_before, leo_after } (leo_after < leo_before − n when a batch held more records). */
export function dropUnflushed(dir, n) {
  const segments = readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort()
    .map((f) => ({ file: f, base: Number(f.slice(0, -4)), batches: batchesOf(readFileSync(join(dir, f))) }));
  const all = segments.flatMap((s) => s.batches.map((b) => ({ ...b, segment: s })));
  if (!all.length) return { leo_before: 0, leo_after: 0 };
  const leoBefore = all.at(-1).last + 1;
  const keepBelow = leoBefore - n;
  const cut = all.find((b) => b.last >= keepBelow);
  if (!cut) return { leo_before: leoBefore, leo_after: leoBefore };
  const seg = cut.segment;
  const fd = openSync(join(dir, seg.file), "r+");
  try {
    ftruncateSync(fd, cut.position);
  } finally {
    closeSync(fd);
  }
  const stem = seg.file.slice(0, -4);
  for (const f of readdirSync(dir)) {
    const base = Number(f.split(".")[0]);
    const later = /^\d{20}\./.test(f) && base > seg.base && /\.(log|index|timeindex|txnindex)$/.test(f);
    const ownIndex = f === `${stem}.index` || f === `${stem}.timeindex`;
    const snapshot = f.endsWith(".snapshot") && base > cut.base;
    if (later || ownIndex || snapshot) rmSync(join(dir, f), { force: true });
  }
  return { leo_before: leoBefore, leo_after: cut.base };
}
