// The guided tours: each is one or more parts (a built-in scenario, maybe
// under another preset) and an ordered list of beats. A beat is pinned to the
// first step after the previous beat where its predicate holds, so beats
// survive changes to the model; its text and quiz read every number from the
// step records (`c`, built by tour-player.js), never from constants here.
// One file per tour; common.js holds what they share.
//
// Levels: a beat shows from its level up; a text has one paragraph per level
// and a learner reads the paragraphs up to theirs.

import { seedTextbook, seedKafka } from "./hw-lag.js";
import { idle } from "./long-poll.js";
import { slow } from "./slow-follower.js";
import { follower } from "./follower-fetch.js";
import { kip101Old, kip101New, kip101Latest } from "./kip101.js";
import { zombie, bounce, duplicates, failover } from "./faults.js";
import { QUESTION_TOURS } from "./questions.js";

export const LEVELS = ["junior", "middle", "senior", "principal"];

export const TOURS = [
  {
    id: "hw-lag",
    title: "Why a follower's HW lags the leader's",
    parts: [
      { scenario: "seed-walkthrough", preset: "textbook", beats: seedTextbook },
      { scenario: "seed-walkthrough", preset: "kafka-4.0", beats: seedKafka },
    ],
  },
  {
    id: "long-poll",
    title: "Long-poll: replica.fetch.wait.max.ms and an idle partition",
    parts: [{ scenario: "idle-partition-lag", beats: idle }],
  },
  {
    id: "slow-follower",
    title: "The slow follower and the ISR (replica.lag.time.max.ms)",
    parts: [{ scenario: "slow-follower-isr", beats: slow }],
  },
  {
    id: "follower-fetch",
    title: "Reading from a follower (KIP-392)",
    parts: [{ scenario: "follower-fetch-consumer", beats: follower }],
  },
  {
    id: "kip101",
    title: "How a stale HW lost data, and how leader epochs fixed it (KIP-101)",
    parts: [
      { scenario: "kip101-data-loss", preset: "kafka-0.10", beats: kip101Old },
      { scenario: "kip101-data-loss", preset: "kafka-0.11", beats: kip101New },
      { scenario: "kip101-data-loss", preset: "kafka-4.0", beats: kip101Latest },
    ],
  },
  {
    id: "faults",
    title: "Faults a Kafka engineer tries first",
    parts: [
      { scenario: "zombie-leader", beats: zombie },
      { scenario: "bounce-inside-session", beats: bounce },
      { scenario: "retry-duplicates", beats: duplicates },
      { scenario: "retry-through-failover", beats: failover },
    ],
  },
  ...QUESTION_TOURS,
];
