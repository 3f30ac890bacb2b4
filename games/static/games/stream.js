// Reads a game's NDJSON stream (/api/v1/games/{id}/stream/): every line is handed to
// `onLine(message, receivedAt)` the moment it arrives, receivedAt being performance.now().
// A stream that drops is reopened with backoff; where streams do not work at all (a
// proxy that buffers them, say), the long-poll (/wait/?after=V) stands in, and reports
// a change as a line of type "poll".

export function follow({ streamUrl, waitUrl, shown, onLine }) {
  let ended = false;
  let failures = 0;

  function handle(text) {
    if (!text) {
      return; // keep-alive
    }
    let message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      return;
    }
    if (message.type === "end") {
      ended = true;
    }
    onLine(message, performance.now());
  }

  function open() {
    if (ended) {
      return;
    }
    if (!window.fetch || !window.ReadableStream || !window.TextDecoder) {
      poll();
      return;
    }
    fetch(streamUrl, { credentials: "same-origin", headers: { Accept: "application/x-ndjson" } })
      .then((response) => {
        if (!response.ok || !response.body) {
          throw new Error("stream " + response.status);
        }
        failures = 0;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        function read() {
          return reader.read().then((chunk) => {
            if (chunk.done) {
              return undefined;
            }
            buffer += decoder.decode(chunk.value, { stream: true });
            const lines = buffer.split("\n");
            buffer = lines.pop();
            lines.forEach(handle);
            return read();
          });
        }
        return read();
      })
      .then(again, again);
  }

  // The stream closed or failed: reopen it after a growing pause, and after repeated
  // failures wait with the long-poll instead.
  function again() {
    if (ended) {
      return;
    }
    failures += 1;
    if (failures > 4) {
      poll();
      return;
    }
    window.setTimeout(open, Math.min(30000, 500 * Math.pow(2, failures)));
  }

  function poll() {
    if (ended) {
      return;
    }
    fetch(waitUrl + "?after=" + shown() + "&timeout=25", { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .then(
        (body) => {
          if (body && body.changed) {
            ended = body.status === "finished" || body.status === "aborted";
            onLine({ type: "poll", game: body }, performance.now());
          }
          window.setTimeout(poll, body ? 200 : 5000);
        },
        () => window.setTimeout(poll, 5000)
      );
  }

  open();
}
