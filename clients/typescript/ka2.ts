// A thin client of `ka2 serve`, using only fetch.
//
// Each function sends one request and resolves to the answer; an error
// answer rejects with a Ka2Error naming the kind the server gives
// (bad_request, budget_exceeded, no_evidence, context_type, overloaded, …).
// Every answer of contract, verify, grade and render carries the id of its
// line in the server's decision log (Answer.decisionId).

/** The response header naming an answer's line in the decision log. */
export const decisionHeader = "Ka2-Decision-Id";
/** The response header naming the corpus an answer was made from. */
export const digestHeader = "Ka2-Corpus-Digest";

/** A successful answer: its body, exactly as sent, and ka2's headers. */
export interface Answer {
  status: number;
  /** The body as text: for a contract, its exact bytes as UTF-8. */
  text: string;
  decisionId: string | null;
  corpusDigest: string | null;
  headers: Headers;
}

/** An error answer: its HTTP status, the error's kind and message. */
export class Ka2Error extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly detail: string,
    readonly decisionId: string | null,
  ) {
    super(`${status} ${kind}: ${detail}`);
    this.name = "Ka2Error";
  }
}

/** A JSON document: an object to encode, or its text as it is. */
export type Doc = string | object;

/** A client of one ka2 serve at baseUrl (http://host:port). */
export class Client {
  readonly baseUrl: string;

  constructor(baseUrl: string, readonly timeoutMs = 30_000) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  private async send(method: string, path: string, body?: Doc, query?: URLSearchParams): Promise<Answer> {
    let url = this.baseUrl + path;
    if (query && [...query].length > 0) url += "?" + query.toString();
    const init: RequestInit = { method, signal: AbortSignal.timeout(this.timeoutMs) };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "Content-Type": "application/json" };
    }
    const resp = await fetch(url, init);
    const text = await resp.text();
    const decisionId = resp.headers.get(decisionHeader);
    if (!resp.ok) {
      let kind = `http_${resp.status}`;
      let message = text;
      try {
        const e = JSON.parse(text).error;
        if (typeof e?.kind === "string") [kind, message] = [e.kind, String(e.message)];
      } catch {
        // not a ka2 error body: keep the text
      }
      throw new Ka2Error(resp.status, kind, message, decisionId);
    }
    return { status: resp.status, text, decisionId, corpusDigest: resp.headers.get(digestHeader), headers: resp.headers };
  }

  /** POST /v1/contract: the contract for a request document. */
  contract(request: Doc): Promise<Answer> {
    return this.send("POST", "/v1/contract", request);
  }

  /** POST /v1/verify: the problems ka2 verify finds in a contract (its text). */
  verify(contract: string, lang?: string): Promise<Answer> {
    return this.send("POST", "/v1/verify", contract, new URLSearchParams(lang ? { lang } : {}));
  }

  /** POST /v1/grade: grade an answer against its contract. */
  grade(request: Doc): Promise<Answer> {
    return this.send("POST", "/v1/grade", request);
  }

  /** POST /v1/render: a contract as the messages a model is sent. */
  render(request: Doc): Promise<Answer> {
    return this.send("POST", "/v1/render", request);
  }

  /** GET /v1/select: every source's decision and reason for subjects and dates. */
  select(subject: string | string[], dates: string[], lang?: string): Promise<Answer> {
    const q = new URLSearchParams();
    for (const s of ([] as string[]).concat(subject)) q.append("subject", s);
    for (const d of dates) q.append("date", d);
    if (lang) q.set("lang", lang);
    return this.send("GET", "/v1/select", undefined, q);
  }

  /** GET /v1/show: the lines an address (travel-v2:1-3) cites. */
  show(address: string, lang?: string): Promise<Answer> {
    const q = new URLSearchParams({ address });
    if (lang) q.set("lang", lang);
    return this.send("GET", "/v1/show", undefined, q);
  }
}
