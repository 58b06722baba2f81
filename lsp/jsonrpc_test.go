package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzRead feeds the message reader arbitrary streams: it never panics,
// fails only with io.EOF or ErrFraming, never returns a body over the
// limit, and reads back exactly what write sent before the stream.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 2\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n{}",
		"content-length:2\r\n\r\n{}Content-Length: 0\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"\r\n",
		"Content-Length: 99999999999\r\n\r\n{}",
		"Content-Length: 2" + strings.Repeat("7", maxHeader) + "\r\n\r\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		w := newConn(nil, &out)
		params := json.RawMessage(`{"n":1}`)
		if err := w.write(message{Method: "ping", Params: params}); err != nil {
			t.Fatal(err)
		}
		sent := bytes.Clone(out.Bytes()[bytes.Index(out.Bytes(), []byte("\r\n\r\n"))+4:])
		c := newConn(io.MultiReader(&out, bytes.NewReader(data)), io.Discard)
		body, err := c.read()
		if err != nil || !bytes.Equal(body, sent) {
			t.Fatalf("read() = %q, %v; want what write sent, %q", body, err, sent)
		}
		for {
			body, err := c.read()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrFraming) {
					t.Fatalf("read() error = %v, want io.EOF or ErrFraming", err)
				}
				return
			}
			if len(body) > maxMessage {
				t.Fatalf("read() returned %d bytes, over the limit", len(body))
			}
		}
	})
}
