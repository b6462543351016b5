// hwscope oracle: the client side of a real Kafka cluster run (issue 16).
//
// One process per role, so that a network cut can single out one client (the
// driver tells packets apart by the sending process's uid):
//
//   java OracleClient PLAN.json
//
// PLAN.json is written by oracle/driver.mjs. Its "role" is one of
//   setup     create the topic with broker 0 as first leader, write the scenario's
//             initial records with acks=all, then exit
//   producer  warm up on a side topic, wait for "go T0", send each produce event at
//             T0 + at_ms (one batch per event), log every send and acknowledgement
//   consumer  read the initial records (warm-up), seek to the scenario's position,
//             wait until the preferred read replica is the one asked for (KIP-392),
//             then log every record received
//   admin     poll the partition's leader/ISR/ELR and the brokers' fencing with the
//             Admin client, as an operator would, and log every change
//
// Protocol: stdout carries one JSON object per line ({"kind": ...}); stdin takes
// "go <T0 epoch microseconds>" and "stop". Times ("t") are milliseconds since T0
// from the wall clock (CLOCK_REALTIME), which every process on the machine shares.
// Kafka's own Java clients, from the same Maven artifacts as the brokers: they are
// the reference implementation of the protocol and their defaults are the ones the
// scenario's preset names (acks, idempotence, retries, timeouts).

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class OracleClient {
  static final ObjectMapper JSON = new ObjectMapper();
  static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);
  static final long NO_T0 = Long.MIN_VALUE;
  static volatile long t0Nanos = NO_T0;
  static final CountDownLatch GO = new CountDownLatch(1);
  static final CountDownLatch STOP = new CountDownLatch(1);
  static volatile boolean stopping = false;

  static JsonNode plan;
  static String topic;
  static TopicPartition tp;

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: OracleClient PLAN.json");
      System.exit(2);
    }
    plan = JSON.readTree(new File(args[0]));
    topic = plan.path("topic").asText("hwscope");
    tp = new TopicPartition(topic, 0);
    startStdinReader();
    String role = plan.path("role").asText();
    try {
      switch (role) {
        case "setup" -> setup();
        case "producer" -> producer();
        case "consumer" -> consumer();
        case "admin" -> admin();
        default -> throw new IllegalArgumentException("role: unknown " + role);
      }
    } catch (Throwable e) {
      ObjectNode n = obj("fatal");
      n.put("error", e.getClass().getSimpleName());
      n.put("message", String.valueOf(e.getMessage()));
      emit(n);
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  // ---- time and output ------------------------------------------------------------

  static long nowNanos() {
    Instant i = Instant.now();
    return i.getEpochSecond() * 1_000_000_000L + i.getNano();
  }

  /** Milliseconds since T0 (3 decimals), or null before T0 is known. */
  static Double sinceT0() {
    long t0 = t0Nanos;
    if (t0 == NO_T0) return null;
    return Math.round((nowNanos() - t0) / 1000.0) / 1000.0;
  }

  static ObjectNode obj(String kind) {
    ObjectNode n = JSON.createObjectNode();
    n.put("kind", kind);
    return n;
  }

  static void emit(ObjectNode n) {
    emitAt(n, sinceT0());
  }

  static synchronized void emitAt(ObjectNode n, Double t) {
    if (t != null) n.put("t", t);
    else n.putNull("t");
    try {
      OUT.println(JSON.writeValueAsString(n));
    } catch (Exception e) {
      OUT.println("{\"kind\":\"fatal\",\"error\":\"json\"}");
    }
    OUT.flush();
  }

  static void startStdinReader() {
    Thread th =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  line = line.trim();
                  if (line.startsWith("go ")) {
                    long micros = Long.parseLong(line.substring(3).trim());
                    t0Nanos = micros * 1000L;
                    GO.countDown();
                  } else if (line.equals("stop")) {
                    stopping = true;
                    STOP.countDown();
                  }
                }
              } catch (Exception e) {
                // stdin closed: treat as stop
              }
              stopping = true;
              GO.countDown();
              STOP.countDown();
            },
            "stdin");
    th.setDaemon(true);
    th.start();
  }

  /** Park until T0 + atMs (wall clock); returns false if asked to stop first. */
  static boolean sleepUntil(double atMs) {
    long target = t0Nanos + Math.round(atMs * 1_000_000.0);
    while (!stopping) {
      long left = target - nowNanos();
      if (left <= 0) return true;
      LockSupport.parkNanos(Math.min(left, 50_000_000L));
    }
    return false;
  }

  static Properties props(JsonNode config) {
    Properties p = new Properties();
    if (config != null) {
      Iterator<Map.Entry<String, JsonNode>> it = config.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        p.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString());
      }
    }
    return p;
  }

  static String errorName(Throwable e) {
    Throwable c = e;
    while (c.getCause() != null
        && (c instanceof java.util.concurrent.ExecutionException
            || c.getClass().getSimpleName().equals("KafkaException"))) {
      c = c.getCause();
    }
    return c.getClass().getSimpleName();
  }

  static ArrayNode ids(List<Node> nodes) {
    ArrayNode a = JSON.createArrayNode();
    List<Integer> l = new ArrayList<>();
    if (nodes != null) for (Node n : nodes) l.add(n.id());
    Collections.sort(l);
    for (int i : l) a.add(i);
    return a;
  }

  // ---- setup ------------------------------------------------------------------------

  static void setup() throws Exception {
    int replicas = plan.path("replicas").asInt();
    String bootstrap = plan.path("bootstrap").asText();
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    ap.put(AdminClientConfig.CLIENT_ID_CONFIG, "hwscope-setup");
    try (Admin admin = Admin.create(ap)) {
      long deadline = System.currentTimeMillis() + 120_000;
      while (true) {
        try {
          int up = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size();
          if (up >= replicas) break;
        } catch (Exception e) {
          // not yet
        }
        if (System.currentTimeMillis() > deadline)
          throw new IllegalStateException("brokers did not register within 120 s");
        Thread.sleep(200);
      }
      List<Integer> assignment = new ArrayList<>();
      for (int b = 0; b < replicas; b++) assignment.add(b);
      Map<String, String> topicConfigs = new HashMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = plan.path("topic_config").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        topicConfigs.put(e.getKey(), e.getValue().asText());
      }
      NewTopic main = new NewTopic(topic, Map.of(0, assignment)).configs(topicConfigs);
      NewTopic warm = new NewTopic(topic + "-warmup", Map.of(0, assignment));
      admin.createTopics(List.of(main, warm)).all().get(60, TimeUnit.SECONDS);
      while (true) {
        boolean ok = true;
        try {
          Map<String, TopicDescription> d =
              admin.describeTopics(List.of(topic, topic + "-warmup")).allTopicNames().get(10, TimeUnit.SECONDS);
          for (TopicDescription td : d.values()) {
            TopicPartitionInfo p = td.partitions().get(0);
            if (p.leader() == null || p.leader().id() != 0 || p.isr().size() != replicas) ok = false;
          }
        } catch (Exception e) {
          ok = false; // the answering broker has not heard of the new topic yet
        }
        if (ok) break;
        if (System.currentTimeMillis() > deadline)
          throw new IllegalStateException("topic did not get leader 0 and a full ISR within 120 s");
        Thread.sleep(100);
      }
    }
    int initial = plan.path("initial_records").asInt(0);
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.CLIENT_ID_CONFIG, "hwscope-setup");
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
      for (int i = 0; i < initial; i++) p.send(new ProducerRecord<>(topic, 0, null, "init-" + (i + 1)));
      p.flush();
      // warm the replication path of every broker once
      for (int i = 0; i < 5; i++) p.send(new ProducerRecord<>(topic + "-warmup", 0, null, "warm-setup-" + i)).get();
    }
    ObjectNode n = obj("setup_done");
    n.put("initial_records", initial);
    emit(n);
  }

  // ---- producer ---------------------------------------------------------------------

  static void producer() throws Exception {
    String id = plan.path("id").asText();
    Properties p = props(plan.path("config"));
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, plan.path("bootstrap").asText());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, id);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    KafkaProducer<String, String> prod = new KafkaProducer<>(p);
    ExecutorService flusher =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "flush");
              t.setDaemon(true);
              return t;
            });
    // Warm-up on the side topic (same leader, same replicas), along the very path the run
    // takes (send with a callback, flush from the pool): connections, the producer id when
    // idempotent, class loading and the JIT. Nothing is written to the scenario's partition.
    // The last ten also measure this run's send→ack time where no timer is involved: the
    // machine's noise right now, which the driver reports and allows for.
    ArrayNode warmMs = JSON.createArrayNode();
    for (int i = 0; i < 30; i++) {
      CountDownLatch acked = new CountDownLatch(1);
      long sent = System.nanoTime();
      long[] ackedAt = new long[1];
      prod.send(
          new ProducerRecord<>(topic + "-warmup", 0, null, padded("warm-" + id + "-" + i, plan.path("record_bytes").asInt(0))),
          (md, ex) -> {
            ackedAt[0] = System.nanoTime();
            acked.countDown();
          });
      flusher.submit(prod::flush);
      acked.await(30, TimeUnit.SECONDS);
      if (i >= 20 && ackedAt[0] != 0) warmMs.add(Math.round((ackedAt[0] - sent) / 1000.0) / 1000.0);
      Thread.sleep(50);
    }
    prod.partitionsFor(topic);
    ObjectNode ready = obj("ready");
    ready.set("warmup_ack_ms", warmMs);
    emit(ready);
    GO.await();
    Set<String> pending = Collections.synchronizedSet(new LinkedHashSet<>());
    int recordBytes = plan.path("record_bytes").asInt(0);
    for (JsonNode ev : plan.path("events")) {
      if (!sleepUntil(ev.path("at_ms").asDouble())) break;
      for (JsonNode idNode : ev.path("ids")) {
        String rid = idNode.asText();
        pending.add(rid);
        ObjectNode s = obj("send");
        s.put("id", rid);
        emit(s);
        try {
          prod.send(
              new ProducerRecord<>(topic, 0, null, padded(rid, recordBytes)),
              (md, ex) -> {
                if (stopping) return;
                pending.remove(rid);
                ObjectNode a = obj("ack");
                a.put("id", rid);
                if (ex == null) {
                  a.put("offset", md.offset());
                } else {
                  a.put("error", errorName(ex));
                  a.put("message", String.valueOf(ex.getMessage()));
                }
                emit(a);
              });
        } catch (Exception ex) {
          pending.remove(rid);
          ObjectNode a = obj("ack");
          a.put("id", rid);
          a.put("error", errorName(ex));
          a.put("message", String.valueOf(ex.getMessage()));
          emit(a);
        }
      }
      // One batch per event, sent at once whatever linger.ms says.
      flusher.submit(prod::flush);
    }
    STOP.await();
    ObjectNode end = obj("end");
    ArrayNode pend = end.putArray("pending");
    synchronized (pending) {
      for (String s : pending) pend.add(s);
    }
    emit(end);
    prod.close(Duration.ZERO);
  }

  /** The record's value: its id, then "|" and padding up to the scenario's record_bytes. */
  static String padded(String id, int bytes) {
    if (bytes <= id.length() + 1) return id;
    return id + "|" + ".".repeat(bytes - id.length() - 1);
  }

  static String idOf(String value) {
    if (value == null) return "";
    int bar = value.indexOf('|');
    return bar < 0 ? value : value.substring(0, bar);
  }

  // ---- consumer ---------------------------------------------------------------------

  static Optional<Double> preferredReadReplica(KafkaConsumer<String, String> c) {
    for (Map.Entry<MetricName, ? extends Metric> e : c.metrics().entrySet()) {
      MetricName m = e.getKey();
      if (m.name().equals("preferred-read-replica") && topic.equals(m.tags().get("topic"))) {
        Object v = e.getValue().metricValue();
        if (v instanceof Number num) return Optional.of(num.doubleValue());
        if (v != null) {
          try {
            return Optional.of(Double.parseDouble(v.toString()));
          } catch (NumberFormatException ignored) {
            return Optional.empty();
          }
        }
      }
    }
    return Optional.empty();
  }

  static void consumer() throws Exception {
    String id = plan.path("id").asText();
    Properties p = props(plan.path("config"));
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, plan.path("bootstrap").asText());
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, id);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    boolean fromFollower = plan.hasNonNull("fetch_from");
    int fetchFrom = plan.path("fetch_from").asInt(-1);
    if (fromFollower) p.put(ConsumerConfig.CLIENT_RACK_CONFIG, "r" + fetchFrom);
    long initial = plan.path("initial_records").asLong(0);
    long position = plan.path("position").asLong(initial);
    KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
    c.assign(List.of(tp));
    // Warm-up: read the initial records (JIT, connections, and the leader's choice of
    // preferred read replica), then stand at the scenario's position.
    c.seek(tp, 0);
    long deadline = System.currentTimeMillis() + 60_000;
    while (c.position(tp) < initial && System.currentTimeMillis() < deadline) c.poll(Duration.ofMillis(100));
    c.seek(tp, position);
    long settle = System.currentTimeMillis() + 1500;
    Optional<Double> pref = Optional.empty();
    while (System.currentTimeMillis() < deadline) {
      ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(100));
      for (ConsumerRecord<String, String> r : rs) {
        ObjectNode n = obj("warmup_record");
        n.put("id", idOf(r.value()));
        n.put("offset", r.offset());
        emit(n);
      }
      pref = preferredReadReplica(c);
      boolean replicaOk = !fromFollower || (pref.isPresent() && pref.get().intValue() == fetchFrom);
      if (replicaOk && System.currentTimeMillis() >= settle) break;
    }
    ObjectNode ready = obj("ready");
    ready.put("position", c.position(tp));
    pref.ifPresent(v -> ready.put("preferred_read_replica", v.intValue()));
    emit(ready);
    // Keep fetching while waiting for T0, exactly as after it.
    Double lastPref = pref.orElse(null);
    while (!stopping) {
      ConsumerRecords<String, String> rs;
      try {
        rs = c.poll(Duration.ofMillis(20));
      } catch (Exception e) {
        ObjectNode n = obj("consumer_error");
        n.put("error", errorName(e));
        n.put("message", String.valueOf(e.getMessage()));
        emit(n);
        Thread.sleep(20);
        continue;
      }
      Double t = sinceT0();
      for (ConsumerRecord<String, String> r : rs) {
        ObjectNode n = obj("recv");
        n.put("id", idOf(r.value()));
        n.put("offset", r.offset());
        r.leaderEpoch().ifPresent(e -> n.put("leader_epoch", e));
        emitAt(n, t);
      }
      Double now = preferredReadReplica(c).orElse(null);
      if (now != null && !now.equals(lastPref)) {
        ObjectNode n = obj("preferred_read_replica");
        n.put("broker", now.intValue());
        emit(n);
        lastPref = now;
      }
    }
    ObjectNode end = obj("end");
    end.put("position", c.position(tp, Duration.ofSeconds(1)));
    emit(end);
    c.close(Duration.ZERO);
  }

  // ---- admin ------------------------------------------------------------------------

  static void admin() throws Exception {
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, plan.path("bootstrap").asText());
    ap.put(AdminClientConfig.CLIENT_ID_CONFIG, "hwscope-admin");
    ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
    ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
    long pollMs = plan.path("poll_ms").asLong(25);
    try (Admin admin = Admin.create(ap)) {
      emit(obj("ready"));
      String last = null;
      String lastBrokers = null;
      String lastErr = null;
      while (!stopping) {
        long started = System.nanoTime();
        try {
          TopicDescription td =
              admin.describeTopics(List.of(topic)).allTopicNames().get(2, TimeUnit.SECONDS).get(topic);
          TopicPartitionInfo pi = td.partitions().get(0);
          ObjectNode n = obj("meta");
          n.put("leader", pi.leader() == null || pi.leader().id() < 0 ? -1 : pi.leader().id());
          n.set("isr", ids(pi.isr()));
          n.set("elr", ids(pi.elr()));
          n.set("last_known_elr", ids(pi.lastKnownElr()));
          String key = n.toString();
          if (!key.equals(last)) {
            emit(n);
            last = key;
          }
          List<Integer> fenced = new ArrayList<>();
          List<Integer> unfenced = new ArrayList<>();
          for (Node b :
              admin
                  .describeCluster(new DescribeClusterOptions().includeFencedBrokers(true))
                  .nodes()
                  .get(2, TimeUnit.SECONDS)) {
            (b.isFenced() ? fenced : unfenced).add(b.id());
          }
          Collections.sort(fenced);
          Collections.sort(unfenced);
          String bk = fenced + "/" + unfenced;
          if (!bk.equals(lastBrokers)) {
            ObjectNode b = obj("brokers");
            ArrayNode f = b.putArray("fenced");
            fenced.forEach(f::add);
            ArrayNode u = b.putArray("unfenced");
            unfenced.forEach(u::add);
            emit(b);
            lastBrokers = bk;
          }
          lastErr = null;
        } catch (Exception e) {
          String en = errorName(e);
          if (!en.equals(lastErr)) {
            ObjectNode n = obj("admin_error");
            n.put("error", en);
            emit(n);
            lastErr = en;
          }
        }
        long left = pollMs * 1_000_000L - (System.nanoTime() - started);
        if (left > 0) LockSupport.parkNanos(left);
      }
    }
  }
}
