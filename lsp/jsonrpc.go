package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one JSON-RPC message body: a policy file is at most
// 4 MiB (inputfile.MaxSize), and a message carries at most one file's
// text plus a few hundred bytes of JSON around it; JSON escapes at most
// double a character of ordinary text (a 3-byte character as a 6-byte
// \uXXXX), so four times the file limit leaves room for any file the
// linter could read.
const maxMessage = 16 << 20

// maxHeader bounds a message's header: LSP defines two fields,
// Content-Length and Content-Type, a hundred bytes between them. The
// reader's buffer is this size, so past it the server has read at most
// this much of the line before it gives up.
const maxHeader = 4 << 10

// message is a JSON-RPC 2.0 request, notification or response.
type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *rpcError        `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC and LSP error codes.
const (
	codeParseError       = -32700
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeServerNotInit    = -32002
	codeRequestCancelled = -32800
)

// conn reads and writes framed messages. Writes are serialized: the
// debounced lint publishes from its own goroutine.
type conn struct {
	r   *bufio.Reader
	mu  sync.Mutex
	w   io.Writer
	seq int // ids of the server's own requests
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{r: bufio.NewReaderSize(r, maxHeader), w: w}
}

// ErrFraming is a message whose header cannot be read, or one over the
// limits of its header or body: the stream cannot be resynchronized
// after it, so Serve returns it and the session ends.
var ErrFraming = errors.New("lsp: bad message framing")

// read returns the next message's body.
func (c *conn) read() ([]byte, error) {
	length, err := c.header()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(length)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: Content-Length %q is not a byte count", ErrFraming, length)
	}
	if n > maxMessage {
		return nil, fmt.Errorf("%w: a message of %d bytes is over the limit of %d; the session ends", ErrFraming, n, maxMessage)
	}
	// Read what arrives rather than allocate the length up front: a
	// header that claims 16 MiB then sends a few bytes holds no more.
	body, err := io.ReadAll(io.LimitReader(c.r, int64(n)))
	if err == nil && len(body) < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFraming, err)
	}
	return body, nil
}

// header reads a message's header, at most maxHeader bytes in all, and
// returns its Content-Length. It returns io.EOF when the stream ends
// before a message starts.
func (c *conn) header() (string, error) {
	var length string
	seen, read := false, 0
	for {
		line, err := c.r.ReadSlice('\n')
		read += len(line)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) || read > maxHeader:
			return "", fmt.Errorf("%w: a message header is over the limit of %d bytes; the session ends", ErrFraming, maxHeader)
		case errors.Is(err, io.EOF) && read == 0:
			return "", io.EOF
		case err != nil:
			return "", fmt.Errorf("%w: the header ends before its blank line: %v", ErrFraming, err)
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		if text == "" {
			if !seen {
				return "", fmt.Errorf("%w: a message header has no Content-Length", ErrFraming)
			}
			return length, nil
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return "", fmt.Errorf("%w: header line %q is not \"Name: value\"", ErrFraming, text)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			// Two lengths would make the message mean two things.
			if seen {
				return "", fmt.Errorf("%w: a message header repeats Content-Length", ErrFraming)
			}
			length, seen = strings.TrimSpace(value), true
		}
	}
}

// write sends one message.
func (c *conn) write(m message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(message{Method: method, Params: p})
}

// request sends a request of the server's own and returns its id (as
// idKey gives it); the read loop hands the client's response to
// Server.response.
func (c *conn) request(method string, params any) (string, error) {
	var p json.RawMessage
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return "", err
		}
	}
	c.mu.Lock()
	c.seq++
	id := json.RawMessage(fmt.Sprintf(`"ka2-%d"`, c.seq))
	c.mu.Unlock()
	return idKey(id), c.write(message{ID: &id, Method: method, Params: p})
}

// reply answers the request with id.
func (c *conn) reply(id *json.RawMessage, result any, rerr *rpcError) error {
	m := message{ID: id, Error: rerr}
	if rerr == nil {
		r, err := json.Marshal(result)
		if err != nil {
			return err
		}
		m.Result = r
	}
	return c.write(m)
}
