"""Tests of ka2client against a real `ka2 serve` on loopback.

The binary is $KA2, or ka2 on PATH. The server answers on a free port of
127.0.0.1 and writes a decision log, which the tests read after stopping it.
"""

import json
import os
import shutil
import subprocess
import tempfile
import threading
import unittest

import ka2client

REQUEST = {"subject": "lodging", "dates": ["2026-09-14"], "question": "What is the Beijing lodging limit?"}


class Server:
    """`ka2 serve --addr 127.0.0.1:0` on the embedded sample corpus."""

    def __init__(self, *args):
        binary = os.environ.get("KA2") or shutil.which("ka2")
        if not binary:
            raise unittest.SkipTest("no ka2 binary: set KA2 or put ka2 on PATH")
        # A folder of its own: no project file of the caller's applies.
        self.dir = tempfile.mkdtemp(prefix="ka2client-")
        self.log = os.path.join(self.dir, "decisions.log")
        self.proc = subprocess.Popen(
            [binary, "serve", "--addr", "127.0.0.1:0", "--log-format", "json", "--watch=false",
             "--decision-log", self.log, *args],
            cwd=self.dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addr = None
        for line in self.proc.stderr:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("msg") == "serving":
                self.addr = rec["addr"]
                break
        if self.addr is None:
            self.proc.wait()
            raise RuntimeError("ka2 serve exited without serving")
        # Keep reading, so that the server never blocks on a full pipe.
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        self.url = "http://" + self.addr

    def stop(self):
        """Stop the server (SIGTERM: it drains) and return the decision
        log's lines."""
        self.proc.terminate()
        code = self.proc.wait(timeout=30)
        if code != 0:
            raise RuntimeError(f"ka2 serve exited {code}")
        with open(self.log, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        shutil.rmtree(self.dir)
        return lines


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.client = ka2client.Client(cls.server.url)
        cls.ids = []

    @classmethod
    def tearDownClass(cls):
        lines = cls.server.stop()
        # One line per answer of contract and verify, with the ids the
        # answers carried.
        logged = [d["id"] for d in lines]
        assert sorted(logged) == sorted(cls.ids), (logged, cls.ids)

    def note(self, decision_id):
        self.assertTrue(decision_id)
        self.ids.append(decision_id)

    def test_contract_verify(self):
        ans = self.client.contract(REQUEST)
        self.note(ans.decision_id)
        doc = ans.json()
        self.assertEqual(doc["template"], "ka2-context-v1")
        self.assertEqual([e["source_id"] for e in doc["evidence"]], ["travel-v2"])
        self.assertTrue(ans.body.endswith(b"\n"))
        self.assertRegex(ans.corpus_digest, "^[0-9a-f]{64}$")
        # The same request gives the same bytes.
        again = self.client.contract(json.dumps(REQUEST))
        self.note(again.decision_id)
        self.assertEqual(again.body, ans.body)
        self.assertNotEqual(again.decision_id, ans.decision_id)

        v = self.client.verify(ans.body)
        self.note(v.decision_id)
        self.assertTrue(v.json()["ok"])
        bad = self.client.verify(ans.body.replace(b"750", b"600"), lang="en")
        self.note(bad.decision_id)
        self.assertFalse(bad.json()["ok"])
        self.assertTrue(bad.json()["problems"])

    def test_errors(self):
        with self.assertRaises(ka2client.Ka2Error) as cm:
            self.client.contract({"subject": "lodging", "dates": ["2026-09-14"]})
        self.assertEqual((cm.exception.status, cm.exception.kind), (400, "bad_request"))
        self.note(cm.exception.decision_id)
        with self.assertRaises(ka2client.Ka2Error) as cm:
            self.client.contract(dict(REQUEST, subject="catering", require_evidence=True))
        self.assertEqual(cm.exception.status // 100, 4)
        self.note(cm.exception.decision_id)
        with self.assertRaises(ka2client.Ka2Error) as cm:
            self.client.show("no-such-source:1-2")
        self.assertEqual((cm.exception.status, cm.exception.kind), (404, "not_found"))
        self.assertIsNone(cm.exception.decision_id)

    def test_select_show(self):
        rep = self.client.select("lodging", ["2026-09-14"]).json()
        self.assertIn("travel-v2", json.dumps(rep))
        shown = self.client.show("travel-v2:1-3", lang="en").json()
        self.assertEqual((shown["source_id"], shown["line_start"], shown["line_end"]), ("travel-v2", 1, 3))
        self.assertIn("750", shown["quote"])

    def test_grade(self):
        contract = self.client.contract(REQUEST)
        self.note(contract.decision_id)
        ok = self.client.grade({"contract": contract.json(), "answer": "The limit is 750 CNY per room-night [travel-v2:3]."})
        self.note(ok.decision_id)
        self.assertTrue(ok.json()["ok"], ok.json())
        wrong = self.client.grade({"contract": contract.json(), "answer": "The limit is 720 CNY per room-night [travel-v2:3]."})
        self.note(wrong.decision_id)
        rep = wrong.json()
        self.assertFalse(rep["ok"])
        self.assertEqual([f["code"] for f in rep["findings"]], ["unsupported_number"])

    def test_render(self):
        contract = self.client.contract(REQUEST)
        self.note(contract.decision_id)
        ans = self.client.render({"contract": contract.json(), "provider": "openai-chat", "model": "m"})
        self.note(ans.decision_id)
        body = ans.json()
        self.assertEqual(body["model"], "m")
        self.assertEqual([m["role"] for m in body["messages"]], ["system", "user"])
        self.assertGreater(body["max_tokens"], 0)

if __name__ == "__main__":
    unittest.main()
