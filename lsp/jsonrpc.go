package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one JSON-RPC message: a policy file is at most 4 MiB,
// and a message carries at most one file's text plus framing.
const maxMessage = 16 << 20

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

func newConn(r io.Reader, w io.Writer) *conn { return &conn{r: bufio.NewReader(r), w: w} }

// errFraming is a message whose header cannot be read; the stream cannot
// be resynchronized after it.
var errFraming = errors.New("lsp: bad message framing")

// read returns the next message's body.
func (c *conn) read() ([]byte, error) {
	tp := textproto.NewReader(c.r)
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		if errors.Is(err, io.EOF) && len(h) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("%w: %v", errFraming, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Content-Length")))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: Content-Length %q", errFraming, h.Get("Content-Length"))
	}
	if n > maxMessage {
		return nil, fmt.Errorf("%w: a message of %d bytes is over the limit of %d", errFraming, n, maxMessage)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, fmt.Errorf("%w: %v", errFraming, err)
	}
	return body, nil
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
