package hl7sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/hl7"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Bounds of the seed's inbox and of a run's MLLP port.
const (
	// MaxInboxFile caps one hl7/inbox/*.hl7 file of the seed.
	MaxInboxFile = 64 << 20
	// MaxInbox caps the inbox's files together.
	MaxInbox = 256 << 20
	// MaxConns is how many MLLP connections one run serves at once; more
	// wait in the kernel's backlog.
	MaxConns = 16
	// MaxPendingBytes bounds the bytes of frames being received on one
	// run's MLLP port: two frames of the largest size.
	MaxPendingBytes = 2 * sim.MaxBody
	// maxEventText caps the control id and message type copied into an
	// event (13.10: at most 4 KiB of a body).
	maxEventText = sim.MaxEventBody
)

// Sim is the HL7 simulator: the seed's inbox, parsed once and shared by
// every run.
type Sim struct {
	inbox []inboxMessage
}

type inboxMessage struct {
	messageType, controlID, payload string
}

// New reads the seed's hl7/inbox/*.hl7 files in name order. A file that
// cannot be read or does not parse is an error naming it; a missing
// folder is an empty inbox.
func New(seed fs.FS) (sim.Sim, error) {
	s := &Sim{}
	entries, err := fs.ReadDir(seed, "hl7/inbox")
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hl7/inbox: %w", err)
	}
	total := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".hl7") {
			continue
		}
		name := "hl7/inbox/" + e.Name()
		data, err := check.ReadFile(seed, name, MaxInboxFile)
		if err != nil {
			return nil, err // a *check.FileError names the file
		}
		if total += len(data); total > MaxInbox {
			return nil, fmt.Errorf("%s: the inbox's files hold more than %d bytes together", name, MaxInbox)
		}
		if len(bytes.Trim(data, " \t\r\n\x0b\x1c")) == 0 {
			continue // only whitespace and framing: no messages, as in a snapshot
		}
		b, err := hl7.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, m := range b.Messages() {
			s.inbox = append(s.inbox, inboxMessage{
				messageType: m.Get(pathMessageType).String(),
				controlID:   m.ControlID(),
				payload:     string(m.Bytes()),
			})
		}
	}
	return s, nil
}

var pathMessageType = hl7.MustParsePath("MSH.9.1")

// NewRun opens the run's MLLP port and starts an empty capture list.
func (s *Sim) NewRun(r sim.Run) (sim.RunSim, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(r.ListenHost(), "0"))
	if err != nil {
		return nil, fmt.Errorf("hl7: the run's MLLP port: %w", err)
	}
	rs := &runSim{sim: s, run: r, addr: ln.Addr().String(), done: make(chan struct{})}
	rs.l = &hl7.Listener{
		MaxConns:        MaxConns,
		MaxPendingBytes: MaxPendingBytes,
		Now:             r.Now,
		Admit:           r.Reserve,
		Answered:        rs.answered,
		Unanswered:      rs.unanswered,
	}
	ctx, cancel := context.WithCancel(context.Background())
	rs.cancel = cancel
	go func() {
		defer close(rs.done)
		if err := rs.l.Serve(ctx, ln); err != nil {
			r.Logf("hl7: the MLLP port %s stopped: %v", rs.addr, err)
		}
	}()
	return rs, nil
}

// runSim is one run's HL7 endpoints: the capture list (the Listener, fed
// by the MLLP port and by POST hl7/outbound) and the seed's inbox.
type runSim struct {
	sim    *Sim
	run    sim.Run
	l      *hl7.Listener
	addr   string
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func (rs *runSim) Mounts() []string { return []string{"hl7"} }

func (rs *runSim) Endpoints(base string, into map[string]string) {
	into["hl7_outbound"] = base + "/hl7/outbound"
	into["hl7_inbox"] = base + "/hl7/inbox"
	into["hl7_mllp"] = sim.PublicAddr(base, rs.addr)
}

// Attach gives the run's captured messages (and rejects) as the hl7
// source: the listener itself.
func (rs *runSim) Attach(env *assert.Env) { hl7.Attach(env, rs.l) }

// Stop closes the MLLP port and its connections and waits until their
// handlers have finished, so every frame ACKed is captured.
func (rs *runSim) Stop() {
	rs.once.Do(func() {
		rs.cancel()
		<-rs.done
	})
}

// Snapshot writes every captured message, hl7/0001.hl7 on, as received.
func (rs *runSim) Snapshot(d sim.Dir) error {
	msgs, err := rs.l.Messages(context.Background())
	if err != nil {
		return err
	}
	for i, m := range msgs {
		if err := d.WriteFile(snapshotName(i+1, len(msgs)), m.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// snapshotName names the n'th of count messages: four digits, more when
// count needs them, so that name order is arrival order.
func snapshotName(n, count int) string {
	width := max(4, len(strconv.Itoa(count)))
	return fmt.Sprintf("hl7/%0*d.hl7", width, n)
}

// outboundEvent is the hl7_outbound event (13.10). A request refused
// over HTTP before any message could be read (no ACK: 400, 405, 413, 415)
// has a null ack_code, its HTTP status and the error.
type outboundEvent struct {
	ControlID   *string `json:"control_id"`
	MessageType *string `json:"message_type"`
	AckCode     *string `json:"ack_code"`
	Transport   string  `json:"transport"`
	Status      int     `json:"status,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// answered records every ACKed input as an event, in capture order (the
// listener calls it under its lock).
func (rs *runSim) answered(a hl7.Answer) {
	rs.run.Touch()
	transport := "mllp"
	if a.Submitted {
		transport = "http"
	}
	rs.run.Emit(sim.Event{Sim: "hl7", Type: "hl7_outbound", Fields: outboundEvent{
		ControlID:   eventText(a.ControlID),
		MessageType: eventText(a.MessageType),
		AckCode:     &a.Code,
		Transport:   transport,
	}})
}

// unanswered records an MLLP input refused without an ACK (a frame cut
// off, bytes outside any frame) as an hl7_outbound event with a null
// ack_code and the reason (the listener calls it under its lock).
func (rs *runSim) unanswered(r hl7.Reject) {
	rs.run.Touch()
	problem := r.Err.Error()
	rs.run.Emit(sim.Event{Sim: "hl7", Type: "hl7_outbound", Fields: outboundEvent{
		Transport: "mllp",
		Error:     problem[:min(len(problem), maxEventText)],
	}})
}

// refuse answers an outbound request that carried no message with the
// sandbox's error body, and records it as an hl7_outbound event without
// an ACK.
func (rs *runSim) refuse(w http.ResponseWriter, status int, code, problem string) {
	rs.run.Emit(sim.Event{Sim: "hl7", Type: "hl7_outbound", Fields: outboundEvent{
		Transport: "http",
		Status:    status,
		Error:     problem[:min(len(problem), maxEventText)],
	}})
	sim.WriteJSONError(w, status, code, problem, nil)
}

// eventText is s for an event: null when empty, cut to maxEventText bytes.
func eventText(s string) *string {
	if s == "" {
		return nil
	}
	s = s[:min(len(s), maxEventText)]
	return &s
}

func (rs *runSim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/hl7/outbound":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			rs.refuse(w, http.StatusMethodNotAllowed, "VALIDATION_ERROR", r.Method+" is not allowed on "+r.URL.Path)
			return
		}
		rs.outbound(w, r)
	case "/hl7/inbox":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			sim.MethodNotAllowed(w, r, "GET")
			return
		}
		rs.inbox(w)
	default:
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no HL7 endpoint "+strconv.Quote(r.URL.Path)+": use hl7/outbound or hl7/inbox", nil)
	}
}

// rawTypes are the content types whose body is the message itself.
var rawTypes = map[string]bool{
	"text/plain":               true,
	"x-application/hl7-v2+er7": true,
	"application/hl7-v2":       true,
	"application/hl7-v2+er7":   true,
	"application/x-hl7":        true,
	"application/edi-hl7v2":    true,
}

// outbound takes one message: {"payload": MESSAGE} or the raw message,
// answered 200 {"ack": ACK} whatever the ACK's code.
func (rs *runSim) outbound(w http.ResponseWriter, r *http.Request) {
	body, err := sim.ReadBody(w, r, sim.MaxBody)
	switch {
	case errors.Is(err, sim.ErrTooLarge):
		rs.refuse(w, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", err.Error())
		return
	case err != nil:
		rs.refuse(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error())
		return
	}
	msg, status, problem := payload(r.Header.Get("Content-Type"), body)
	if problem != "" {
		rs.refuse(w, status, "VALIDATION_ERROR", problem)
		return
	}
	a := rs.l.Submit("http "+r.RemoteAddr, msg)
	sim.WriteJSON(w, http.StatusOK, map[string]string{"ack": string(a.ACK)})
}

// payload returns the message a POST body carries, given its content
// type; a problem (with its HTTP status) when the body cannot carry one.
func payload(contentType string, body []byte) (msg []byte, status int, problem string) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case contentType == "":
		// No type: a JSON object is the wrapper, anything else the message.
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			return jsonPayload(body)
		}
		return body, 0, ""
	case err != nil:
		return nil, http.StatusUnsupportedMediaType, "Content-Type " + strconv.Quote(contentType) + " cannot be read: send application/json {\"payload\": MESSAGE} or the message as text/plain or x-application/hl7-v2+er7"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return jsonPayload(body)
	case rawTypes[mt]:
		return body, 0, ""
	}
	return nil, http.StatusUnsupportedMediaType, "Content-Type " + strconv.Quote(mt) + " is not taken: send application/json {\"payload\": MESSAGE} or the message as text/plain or x-application/hl7-v2+er7"
}

func jsonPayload(body []byte) ([]byte, int, string) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, http.StatusBadRequest, "the body is not a JSON object {\"payload\": MESSAGE}: " + err.Error()
	}
	raw, ok := v["payload"]
	var s string
	if !ok || json.Unmarshal(raw, &s) != nil {
		return nil, http.StatusBadRequest, "the body needs \"payload\": the HL7 message as a JSON string"
	}
	return []byte(s), 0, ""
}

// inboxEntry is one message of GET hl7/inbox.
type inboxEntry struct {
	ID          string `json:"id"`
	MessageType string `json:"message_type"`
	ControlID   string `json:"control_id"`
	Payload     string `json:"payload"`
	ReceivedAt  string `json:"received_at"`
}

// inbox lists the seed's inbox messages: id is the position from 1,
// received_at the run's start on its clock.
func (rs *runSim) inbox(w http.ResponseWriter) {
	at := rs.run.Started().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	data := make([]inboxEntry, len(rs.sim.inbox))
	for i, m := range rs.sim.inbox {
		data[i] = inboxEntry{ID: strconv.Itoa(i + 1), MessageType: m.messageType, ControlID: m.controlID, Payload: m.payload, ReceivedAt: at}
	}
	sim.WriteJSON(w, http.StatusOK, map[string]any{"data": data})
}
