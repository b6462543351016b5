// "How to read this" (index.html's closed <details class="legend">): its lines load
// when the reader first opens it, or once the page is idle (panels/page.js), not in the
// first load, which draws only its summary. The page's own words, as HTML.

export const LEGEND = [
  "<li>Each column is one broker's copy of the partition's log; offsets grow upwards on one shared ruler. Colours are leader epochs.</li>",
  "<li><b>LEO</b> (log end offset) is the next offset a replica will write. <b>HW</b> (high watermark): everything below it is committed, and only that is readable by consumers. Solid records are below that replica's HW; dashed ones are not.</li>",
  "<li>The leader's HW is the lowest LEO among the ISR, as it learns them from the followers' Fetch requests. A follower only learns the leader's HW from the next Fetch <i>response</i>, one round trip later: the <span class=\"lagkey\">shaded band</span> is committed on the leader but not yet below this follower's HW.</li>",
  "<li>Markers left of the leader's log (<b>▸1</b>) are its view of each follower's fetch offset (<b>▸1 &amp; 2</b>: two followers at one offset; <b>▸1–4</b>: brokers 1 to 4 there). <b>▸c1</b> marks a consumer's position.</li>",
  "<li><b>Fetch 105 · e0</b>: a follower asks for records from offset 105; its last record is from epoch 0. <b>2 rec · HW 105</b>: the answer, with the leader's HW. A fetch with nothing to return waits at the leader (<b>‖</b> on its pill) until records arrive or it expires.</li>",
  "<li>A broker's header says where it stands: <b>in ISR</b>, <b>leaving ISR</b>, <b>joining ISR</b>, <b>out of ISR</b>, in the <b>ELR</b> (eligible leader replicas, 4.1), <b>fenced</b> by the controller, <b>offline</b> (greyed), or <b>starting</b> / <b>recovery</b> after a restart until the controller takes it back. A faded marker ▸ is a follower out of the ISR. <b>leader? zombie</b> (dashed red): it still leads in its own view, but the controller has elected another; it learns only when it hears from the controller again.</li>",
  "<li>A message in red carries an error. The <b>controller</b> is on the network too: heartbeats go to it, metadata comes from it. A cut link is a <span class=\"cutkey\">dashed red arc</span> with a <b>✕</b>: messages to or from the controller are lost there, the others wait on it until it heals (TCP) or their sender gives up.</li>",
  "<li><b>✕ p1-7 #42</b>: a record lost from this replica's log stays drawn as a dashed ghost, with the step that removed it. <b>Lost in this run</b> lists each acknowledged or read record that was lost: “as the configuration permits” when acks=1, an unclean election or a crash before a flush allows it; any other loss is a broken promise.</li>",
  "<li><b>ISR &lt; 2</b> (red tag on the leader): its ISR is smaller than min.insync.replicas. acks=all writes are refused there (NOT_ENOUGH_REPLICAS) and, from 3.7, the HW is held: a <span class=\"badkey\">red dashed HW line</span>, <b>HW 101 held</b>. A producer whose write is refused or given up is outlined red: <b>retry 3 (ISR too small)</b>, <b>1 failed</b>.</li>",
  "<li><b>×2</b> (outlined red): a record appended a second time under the same id, a producer's retry without idempotence. <b>retry 2</b> on a producer: a batch on its second attempt after an error or a timeout.</li>",
  "<li>Click a broker or a message to see all its fields.</li>",
];
