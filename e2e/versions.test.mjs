// The version time machine on the page (issue 12): the Settings dialog shows each
// Kafka setting's value in force and where it comes from, and the preset picker
// says what changed at each version; the stage marks the Eligible Leader Replicas
// (kafka-4.1); Compare opens the elr built-in as kafka-4.0 against kafka-4.1.
//
// Needs www/pkg (npm run build). Uses HWSCOPE_BIN when set, else builds the
// native CLI once (cargo build --release --bin hwscope, a no-op when fresh).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { assertNoErrors, cliTrace, hwscope, launch } from "./helpers.mjs";


async function ready(page) {
  await page.waitForSelector("#status[data-step]");
  await page.waitForSelector(".broker[data-broker]");
}

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

test("Settings shows each setting's value in force and where it comes from, by preset", async () => {
  const page = await env.open("/");
  await ready(page);
  await page.click("#settings-open");
  const note = (key) => page.$eval(`.field[data-key="${key}"] .src`, (n) => n.textContent);
  await page.selectOption("#f-preset", "kafka-2.4");
  assert.equal(await note("config.replica.lag.time.max.ms"), "10000 — Kafka's default before 2.5 (KIP-537 raised it to 30000)");
  assert.equal(await note("config.zookeeper.session.timeout.ms"), "6000 — Kafka's default before 2.5 (KIP-537 raised it to 18000)");
  assert.match(await note("config.broker.session.timeout.ms"), /not used by this preset/);
  await page.selectOption("#f-preset", "kafka-2.8");
  assert.equal(await note("config.replica.lag.time.max.ms"), "30000 — Kafka 2.5+ default (KIP-537)");
  assert.equal(await page.$eval("#f-config-replica_lag_time_max_ms", (i) => i.placeholder), "30000");
  await page.selectOption("#f-preset", "kafka-0.10");
  assert.equal(await note("config.unclean.leader.election.enable"), "true — Kafka's default before 0.11 (KIP-106 turned it off)");
  // A value the scenario sets is the scenario's.
  await page.fill("#f-config-replica_lag_time_max_ms", "5000");
  assert.equal(await note("config.replica.lag.time.max.ms"), "5000 — set by the scenario");
  assert.match(await page.inputValue("#json"), /"replica.lag.time.max.ms": 5000/);
  // The preset picker: the chosen preset's summary, and every preset with what changed at it.
  assert.match(await page.$eval('.field[data-key="preset"] .src', (n) => n.textContent), /KIP-101/);
  const listed = await page.$$eval(".preset-list dt", (ds) => ds.map((d) => d.textContent));
  const cli = hwscope(["presets"]).trim().split("\n").map((l) => l.split(/\s+/)[0]);
  assert.deepEqual(listed, cli);
  const about = await page.$$eval(".preset-list dd", (ds) => ds.map((d) => d.textContent));
  assert.ok(about.every((a) => a.length > 20), "a line for each preset");
  // The table of every setting in force says where each comes from.
  const rows = await page.$$eval(".in-force tr[data-source]", (rs) => rs.map((r) => r.dataset.source));
  assert.ok(rows.includes("preset") && rows.includes("scenario") && rows.includes("default"), rows.join(","));
  assertNoErrors(page);
  await page.close();
});

test("the stage tags the ELR members beside the ISR (kafka-4.1)", async () => {
  // The first step where leader 1 is the ISR alone and 0 and 2 are eligible (ELR).
  const records = hwscope(["run", "--builtin", "elr"]).trim().split("\n").map((l) => JSON.parse(l));
  const rec = records.find((r) => JSON.stringify([r.partition.isr, r.partition.elr]) === "[[1],[0,2]]");
  assert.ok(rec, "the elr built-in reaches ISR {1} with ELR {0, 2}");
  const frag = hwscope(["link", "--builtin", "elr", "--at", String(rec.step)]).trim();
  const page = await env.open(`/${frag}`);
  await ready(page);
  await page.waitForFunction((s) => document.getElementById("status").dataset.step === s, String(rec.step));
  const tags = await page.$$eval(".broker[data-broker]", (gs) => gs.map((g) => g.dataset.elr ?? ""));
  assert.deepEqual(tags, ["ELR", "", "ELR"]);
  assert.equal(await page.$eval('.broker[data-broker="2"] .elr-tag text', (t) => t.textContent), "ELR");
  assert.match(await page.textContent("#status"), /ISR \{1\} · ELR \{0, 2\}/);
  assert.match(await page.$eval('.broker[data-broker="2"]', (g) => g.getAttribute("aria-label")), /in ELR/);
  // Under kafka-4.0 there is no ELR to draw.
  const plain = hwscope(["link", "--builtin", "acks-and-min-isr", "--at", "5"]).trim();
  await page.goto(new URL(`/${plain}`, env.baseURL).href);
  await ready(page);
  assert.equal(await page.$$eval(".elr-tag text", (ts) => ts.length), 0);
  assert.doesNotMatch(await page.textContent("#status"), /ELR/);
  assertNoErrors(page);
  await page.close();
});

test("Compare opens the elr built-in as kafka-4.0 against kafka-4.1, and both presets can change", async () => {
  const frag = hwscope(["link", "--builtin", "elr"]).trim();
  const page = await env.open(`/?view=compare${frag}`);
  await ready(page);
  await page.waitForSelector(".view-compare .cmp-side h4");
  const heads = () => page.$$eval(".view-compare .cmp-side h4", (hs) => hs.map((h) => h.textContent));
  assert.deepEqual(await heads(), ["A · preset kafka-4.0", "B · preset kafka-4.1"]);
  // After the fence (16.9 s) A has no leader and B has elected broker 1 from the ELR.
  await page.$eval(".view-compare .cmp-scrub", (el) => {
    el.value = "17500";
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  const status = await page.$$eval(".view-compare .cmp-status", (ss) => ss.map((s) => s.textContent));
  assert.match(status[0], /leader none · ISR \{0\}/);
  assert.match(status[1], /leader 1 · ISR \{1(, 2)?\}/);
  // Any two presets: A's changes too.
  await page.selectOption('.view-compare select[aria-label="A\'s preset"]', "kafka-2.8");
  await page.waitForFunction(() => document.querySelector(".view-compare .cmp-side h4")?.textContent === "A · preset kafka-2.8");
  assert.deepEqual(await heads(), ["A · preset kafka-2.8", "B · preset kafka-4.1"]);
  assertNoErrors(page);
  await page.close();
});

test("a connection attempt given up after socket.connection.setup.timeout.ms is told on the page (KIP-601)", async () => {
  // A producer's resend on a new connection whose SYN-ACK a one-way cut drops for 19 s.
  const scenario = {
    format: 1, preset: "kafka-4.0", replicas: 3, initial: { log_end_offset: 10 },
    producers: [{ id: "p", acks: "all", "request.timeout.ms": 3000, "delivery.timeout.ms": 300000 }],
    events: [
      { at_ms: 800, partition: { from: 0, to: "p" } },
      { at_ms: 1000, produce: { producer: "p", records: 1 } },
      { at_ms: 20000, heal: { from: 0, to: "p" } },
    ],
    stop_at_ms: 30000,
  };
  const file = join(mkdtempSync(join(tmpdir(), "hwscope-kip601-")), "s.json");
  writeFileSync(file, JSON.stringify(scenario));
  const given = cliTrace([file]).find((r) => r.event?.timer === "connection-setup-timeout");
  assert.ok(given, "the attempt is given up");
  const frag = hwscope(["link", file, "--at", String(given.step)]).trim();
  const page = await env.open(`/${frag}`);
  await ready(page);
  await page.waitForFunction((s) => document.getElementById("status").dataset.step === s, String(given.step));
  await page.waitForFunction(() => /socket\.connection\.setup\.timeout\.ms/.test(document.getElementById("live").textContent));
  assert.equal(await page.textContent("#live"), given.text);
  assert.match(given.text, /^Producer p's new connection to broker 0 has had no answer for \d+ ms: the client gives the attempt up/);
  assertNoErrors(page);
  await page.close();
});
