// Package netlimit holds a listener that caps the connections a server
// holds at once. At the cap, Accept waits for a connection to close rather
// than refusing new ones (they queue in the kernel's backlog), and a
// failure to accept for lack of file descriptors is retried with a backoff
// instead of ending the server (DESIGN.md section 11, section 12 rule 20).
package netlimit
