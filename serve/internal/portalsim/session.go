package portalsim

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"slices"
)

// cookieName is the web session's cookie.
const cookieName = "assay_portal_session"

// session is one signed-in browser.
type session struct {
	id   string
	csrf string // the token every form of the session carries
	user string
}

func (s *session) validCSRF(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.csrf)) == 1
}

// sessionOf returns the request's session, or nil.
func (rs *runSim) sessionOf(req *http.Request) *session {
	c, err := req.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.sessions[c.Value]
}

// startSession signs a browser in, ending the oldest session when the run
// holds MaxSessions.
func (rs *runSim) startSession(w http.ResponseWriter, req *http.Request, user string) *session {
	s := &session{id: rand.Text() + rand.Text(), csrf: rand.Text(), user: user}
	rs.mu.Lock()
	if len(rs.sessOrder) >= MaxSessions {
		delete(rs.sessions, rs.sessOrder[0])
		rs.sessOrder = rs.sessOrder[1:]
	}
	rs.sessions[s.id] = s
	rs.sessOrder = append(rs.sessOrder, s.id)
	rs.mu.Unlock()
	http.SetCookie(w, rs.cookie(req, s.id, 0))
	return s
}

// endSession signs a browser out.
func (rs *runSim) endSession(w http.ResponseWriter, req *http.Request, s *session) {
	rs.mu.Lock()
	delete(rs.sessions, s.id)
	if i := slices.Index(rs.sessOrder, s.id); i >= 0 {
		rs.sessOrder = slices.Delete(rs.sessOrder, i, i+1)
	}
	rs.mu.Unlock()
	http.SetCookie(w, rs.cookie(req, "", -1))
}

// cookie is the session cookie: random, HttpOnly, SameSite=Lax, its path
// the run's portal as the caller sees it, Secure behind an https public
// URL. maxAge -1 deletes it.
func (rs *runSim) cookie(req *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     cookieName,
		Value:    value,
		Path:     rs.pageBase(req),
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   rs.secure,
		SameSite: http.SameSiteLaxMode,
	}
}
