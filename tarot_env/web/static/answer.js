// An HTTP answer of the server's, read for the page: its JSON, or an Error whose message is the server's own
// words. A refusal's JSON `error` is shown as it is; an answer that is not JSON (a proxy's error page, a bare
// "Internal Server Error") is shown as its status and the start of its text, never as a JSON parse error
// ("Unexpected token 'I', "Internal S"... is not valid JSON" was all a new visitor saw of a refused name).
// No DOM here: tests/test_web_names.py runs it in Node.

export async function answerOf(response) {
  const text = await response.text();
  let data = null;
  try { data = JSON.parse(text); } catch (err) { data = null; }
  const object = data !== null && typeof data === "object" && !Array.isArray(data);
  if (response.ok && object) return data;
  const words = object && typeof data.error === "string" && data.error ? data.error
    : `the server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`
      + (text.trim() ? `: ${text.trim().slice(0, 200)}` : " with nothing");
  throw Object.assign(new Error(words), { status: response.status });
}

// POST `body` as JSON to `url`; the answer as answerOf reads it (a network failure said in words too).
export async function postJSON(url, body) {
  let response;
  try {
    response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (err) {
    throw new Error(`the server could not be reached (${err.message}); try again`);
  }
  return answerOf(response);
}
