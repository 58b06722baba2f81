"""A thin client of `ka2 serve`, using only Python's standard library.

Each function sends one request and returns the answer; an error answer
raises Ka2Error with the kind the server names (bad_request,
budget_exceeded, no_evidence, context_type, overloaded, ...). Every answer
of contract, verify, grade and render carries the id of its line in the
server's decision log (see Answer.decision_id).

    import ka2client
    c = ka2client.Client("http://127.0.0.1:8080")
    ans = c.contract({"subject": "lodging", "dates": ["2026-09-14"],
                      "question": "What is the Beijing lodging limit?"})
    ans.body          # the contract bytes, exactly as ka2 build prints them
    ans.decision_id   # its line in the decision log
    c.verify(ans.body).json()["ok"]
"""

import json
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Answer", "Client", "Ka2Error"]

DECISION_HEADER = "Ka2-Decision-Id"
DIGEST_HEADER = "Ka2-Corpus-Digest"


class Ka2Error(Exception):
    """An error answer: its HTTP status, the error kind and message."""

    def __init__(self, status, kind, message, decision_id=None):
        super().__init__(f"{status} {kind}: {message}")
        self.status = status
        self.kind = kind
        self.message = message
        self.decision_id = decision_id


class Answer:
    """A successful answer: its body as bytes and the headers ka2 sets."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body
        self.decision_id = headers.get(DECISION_HEADER)
        self.corpus_digest = headers.get(DIGEST_HEADER)

    def json(self):
        """The body decoded as JSON."""
        return json.loads(self.body)


class Client:
    """A client of one ka2 serve at base_url (http://host:port)."""

    def __init__(self, base_url, timeout=30.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def _do(self, method, path, body=None, query=None):
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query, doseq=True)
        req = urllib.request.Request(url, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return Answer(resp.status, resp.headers, resp.read())
        except urllib.error.HTTPError as e:
            data = e.read()
            kind, message = "http_%d" % e.code, data.decode("utf-8", "replace")
            try:
                err = json.loads(data)["error"]
                kind, message = err["kind"], err["message"]
            except (ValueError, KeyError, TypeError):
                pass
            raise Ka2Error(e.code, kind, message, e.headers.get(DECISION_HEADER)) from None

    @staticmethod
    def _json(doc):
        if isinstance(doc, (bytes, bytearray)):
            return bytes(doc)
        if isinstance(doc, str):
            return doc.encode("utf-8")
        return json.dumps(doc, ensure_ascii=False).encode("utf-8")

    def contract(self, request):
        """POST /v1/contract: the contract for a request document (a dict,
        or its JSON text); Answer.body holds its exact bytes."""
        return self._do("POST", "/v1/contract", self._json(request))

    def verify(self, contract, lang=None):
        """POST /v1/verify: the problems ka2 verify finds in a contract
        (its bytes); .json()["ok"] says whether it verifies."""
        return self._do("POST", "/v1/verify", self._json(contract), {"lang": lang} if lang else None)

    def grade(self, request):
        """POST /v1/grade: grade an answer against its contract (the
        request document the server's API describes)."""
        return self._do("POST", "/v1/grade", self._json(request))

    def render(self, request):
        """POST /v1/render: render a contract as the messages a model is
        sent (the request document the server's API describes)."""
        return self._do("POST", "/v1/render", self._json(request))

    def select(self, subject, dates, lang=None):
        """GET /v1/select: every source's decision and reason for a subject
        (or a list of them) and dates."""
        query = {"subject": subject, "date": list(dates)}
        if lang:
            query["lang"] = lang
        return self._do("GET", "/v1/select", query=query)

    def show(self, address, lang=None):
        """GET /v1/show: the lines an address (travel-v2:1-3) cites."""
        query = {"address": address}
        if lang:
            query["lang"] = lang
        return self._do("GET", "/v1/show", query=query)
