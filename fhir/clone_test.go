package fhir

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// cloneSeed is a store of n Patients and n Observations.
func cloneSeed(t testing.TB, n int) *Store {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resource":{"resourceType":"Patient","id":"p%d","gender":%q,"birthDate":"19%02d-01-01","name":[{"family":"Fam%d"}],"identifier":[{"system":"urn:mrn","value":"m%d"}]}},`,
			i, []string{"male", "female", "other"}[i%3], i%100, i%50, i)
		fmt.Fprintf(&b, `{"resource":{"resourceType":"Observation","id":"o%d","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"c%d"}]},"subject":{"reference":"Patient/p%d"},"effectiveDateTime":"2024-01-%02dT10:00:00Z"}}`,
			i, i%20, i, i%28+1)
	}
	b.WriteString(`]}`)
	s := NewStore(WithClock(func() time.Time { return testNow }))
	if _, err := s.LoadJSON(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	return s
}

func bundleOf(t testing.TB, s *Store) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteBundle(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A clone starts as its origin and lives apart from it, in both
// directions; tables are shared until a type is first written.
func TestClone(t *testing.T) {
	base := cloneSeed(t, 50)
	before := bundleOf(t, base)
	c1, c2 := base.Clone(), base.Clone()
	if bundleOf(t, c1) != before || c1.Len() != base.Len() {
		t.Fatal("a clone differs from its origin")
	}
	if c1.types["Patient"] != base.types["Patient"] {
		t.Fatal("a clone copied a table it has not written")
	}
	// Writes to c1: none seen by the base or c2.
	if _, _, err := c1.Update("Patient", "p1", []byte(`{"resourceType":"Patient","gender":"unknown"}`)); err != nil {
		t.Fatal(err)
	}
	if err := c1.Delete("Patient", "p2"); err != nil {
		t.Fatal(err)
	}
	created, err := c1.Create("Patient", []byte(`{"resourceType":"Patient"}`))
	if err != nil {
		t.Fatal(err)
	}
	if bundleOf(t, base) != before || bundleOf(t, c2) != before {
		t.Error("a write to a clone changed its origin or a sibling")
	}
	if c1.types["Observation"] != base.types["Observation"] || c1.types["Patient"] == base.types["Patient"] {
		t.Error("the first write should copy the Patient table alone")
	}
	// A write to the base is not seen by its clones.
	if _, _, err := base.Update("Observation", "o1", []byte(`{"resourceType":"Observation","status":"cancelled","code":{"text":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	if r, _ := c2.Read("Observation", "o1"); bytes.Contains(r.JSON, []byte("cancelled")) {
		t.Error("a write to the origin reached a clone")
	}
	// Searches see each store's own state.
	ctx := context.Background()
	if res, _ := c1.Search(ctx, "Patient", url.Values{"gender": {"unknown"}}); len(res) != 1 {
		t.Errorf("c1 gender=unknown: %d", len(res))
	}
	for _, s := range []*Store{base, c2} {
		if res, _ := s.Search(ctx, "Patient", url.Values{"gender": {"unknown"}}); len(res) != 0 {
			t.Errorf("gender=unknown outside c1: %d", len(res))
		}
		if res, _ := s.Search(ctx, "Observation", url.Values{"status": {"cancelled"}}); (s == base) != (len(res) == 1) {
			t.Errorf("status=cancelled: %d", len(res))
		}
	}
	// Ids are minted alike by clones given the same requests.
	other, _ := c2.Create("Patient", []byte(`{"resourceType":"Patient"}`))
	if other.ID != created.ID {
		t.Errorf("clones minted %s and %s", created.ID, other.ID)
	}
	// A clone of a clone, and the clock option.
	later := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c3 := c1.Clone(WithClock(func() time.Time { return later }))
	r, _ := c3.Create("Patient", []byte(`{"resourceType":"Patient"}`))
	if !bytes.Contains(r.JSON, []byte(`"lastUpdated":"2030-01-02T03:04:05.000Z"`)) {
		t.Errorf("clock: %s", r.JSON)
	}
	if _, err := c1.Read("Patient", r.ID); err == nil {
		t.Error("a grandchild's write reached its parent")
	}
	for _, s := range []*Store{base, c1, c2, c3} {
		if err := checkStore(s); err != nil {
			t.Error(err)
		}
	}
}

// Stores sharing tables search them at once (each building columns and
// indexes on first use) while others write: go test -race checks it.
func TestCloneConcurrent(t *testing.T) {
	base := cloneSeed(t, 300)
	queries := []struct {
		typ string
		q   url.Values
	}{
		{"Patient", url.Values{"gender": {"female"}}},
		{"Patient", url.Values{"birthdate": {"ge1950"}, "_sort": {"-birthdate"}}},
		{"Patient", url.Values{"identifier": {"urn:mrn|m7"}}},
		{"Patient", url.Values{"family": {"fam1"}}},
		{"Observation", url.Values{"code": {"http://loinc.org|c3"}}},
		{"Observation", url.Values{"date": {"eq2024-01-05"}}},
		{"Observation", url.Values{"subject": {"Patient/p9"}}},
		{"Observation", url.Values{"subject:Patient.gender": {"female"}, "_sort": {"-date"}}},
		{"Patient", url.Values{"_has:Observation:subject:code": {"http://loinc.org|c3"}, "_revinclude": {"Observation:subject"}}},
	}
	var wg sync.WaitGroup
	stores := make([]*Store, 8)
	for i := range stores {
		stores[i] = base.Clone()
	}
	errs := make(chan error, 100)
	for i, s := range append(stores, base) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 40 {
				q := queries[(i+k)%len(queries)]
				if _, err := s.Search(context.Background(), q.typ, q.q); err != nil {
					errs <- err
					return
				}
				if i%2 == 0 && k%5 == 0 {
					body := fmt.Sprintf(`{"resourceType":"Patient","gender":"female","identifier":[{"system":"urn:mrn","value":"w%d"}]}`, k)
					if _, _, err := s.Update("Patient", fmt.Sprintf("p%d", k), []byte(body)); err != nil {
						errs <- err
						return
					}
				}
				if i%3 == 0 && k == 20 {
					s.Clone().Search(context.Background(), "Observation", url.Values{"status": {"final"}})
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, s := range append(stores, base) {
		if err := checkStore(s); err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	// Stores that wrote see their writes; the others the seed.
	for i, s := range stores {
		res, _ := s.Search(context.Background(), "Patient", url.Values{"identifier": {"urn:mrn|w5"}})
		if len(res) != map[bool]int{true: 1, false: 0}[i%2 == 0] {
			t.Errorf("store %d: identifier w5 matches %d", i, len(res))
		}
	}
}

// A failed transaction undoes its writes, the columns and indexes built
// while it ran included.
func TestRollbackIndexes(t *testing.T) {
	s := cloneSeed(t, 20)
	ctx := context.Background()
	s.Search(ctx, "Patient", url.Values{"gender": {"male"}}) // build before
	before := bundleOf(t, s)
	_, err := s.Transact([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[
	 {"resource":{"resourceType":"Patient","id":"p1","gender":"unknown","birthDate":"2001"},"request":{"method":"PUT","url":"Patient/p1"}},
	 {"resource":{"resourceType":"Patient","gender":"unknown"},"request":{"method":"POST","url":"Patient"}},
	 {"request":{"method":"DELETE","url":"Patient/p3"}},
	 {"request":{"method":"GET","url":"Patient?birthdate=2001&gender=unknown&family=x"}},
	 {"request":{"method":"GET","url":"Patient/nobody"}}]}`), "")
	if err == nil {
		t.Fatal("the transaction did not fail")
	}
	if err := checkStore(s); err != nil {
		t.Fatal(err)
	}
	if bundleOf(t, s) != before {
		t.Error("the failed transaction left a trace")
	}
	if res, _ := s.Search(ctx, "Patient", url.Values{"gender": {"unknown"}}); len(res) != 0 {
		t.Errorf("gender=unknown after the rollback: %d", len(res))
	}
	if res, _ := s.Search(ctx, "Patient", url.Values{"birthdate": {"2001"}}); len(res) != 0 {
		t.Errorf("birthdate=2001 after the rollback: %d", len(res))
	}
}

// TestIndexUpkeep: indexes kept up to date by writes (updates that move a
// resource to another code or date, creates, deletes, rolled-back
// transactions, enough of them to rebuild the key and date indexes)
// answer as a store built afresh from the same resources does, in the
// store and in a clone of it (whose writes go to its own layer).
func TestIndexUpkeep(t *testing.T) {
	base := cloneSeed(t, 300)
	queries := []struct {
		typ string
		q   url.Values
	}{
		{"Patient", url.Values{"gender": {"female"}}},
		{"Patient", url.Values{"identifier": {"urn:mrn|m7,urn:mrn|w9"}}},
		{"Patient", url.Values{"birthdate": {"1999-01-01"}}},
		{"Patient", url.Values{"birthdate": {"lt1905"}, "_sort": {"-birthdate,_id"}}},
		{"Observation", url.Values{"subject": {"Patient/p9"}}},
		{"Observation", url.Values{"code": {"http://loinc.org|c3"}, "date": {"eq2024-01-05"}}},
		{"Observation", url.Values{"subject:Patient.gender": {"other"}, "_sort": {"_id"}}},
		{"Patient", url.Values{"_has:Observation:subject:code": {"c7"}}},
	}
	ctx := context.Background()
	answer := func(s *Store) string {
		var b strings.Builder
		for _, q := range queries {
			res, err := s.Search(ctx, q.typ, q.q)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(res))
			for i, r := range res {
				ids[i] = r.ID
			}
			if !q.q.Has("_sort") {
				slices.Sort(ids)
			}
			fmt.Fprintf(&b, "%s?%s=%s\n", q.typ, q.q.Encode(), strings.Join(ids, ","))
		}
		return b.String()
	}
	fresh := func(s *Store) *Store {
		f := NewStore(WithClock(func() time.Time { return testNow }))
		if _, err := f.LoadJSON([]byte(bundleOf(t, s))); err != nil {
			t.Fatal(err)
		}
		return f
	}
	answer(base) // build every index
	write := func(s *Store, n int) {
		for i := range n {
			switch i % 5 {
			case 0, 1:
				body := fmt.Sprintf(`{"resourceType":"Patient","gender":%q,"birthDate":"19%02d-01-01","identifier":[{"system":"urn:mrn","value":"w%d"}]}`, []string{"male", "female", "other"}[i%3], i%100, i%17)
				if _, _, err := s.Update("Patient", fmt.Sprintf("p%d", i%300), []byte(body)); err != nil {
					t.Fatal(err)
				}
			case 2:
				body := fmt.Sprintf(`{"resourceType":"Observation","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"c%d"}]},"subject":{"reference":"Patient/p%d"},"effectiveDateTime":"2024-01-%02dT10:00:00Z"}`, i%11, i%40, i%28+1)
				if _, err := s.Create("Observation", []byte(body)); err != nil {
					t.Fatal(err)
				}
			case 3:
				s.Delete("Observation", fmt.Sprintf("o%d", i%300))
			case 4:
				// A transaction that fails after its writes.
				s.Transact([]byte(fmt.Sprintf(`{"resourceType":"Bundle","type":"transaction","entry":[
				 {"resource":{"resourceType":"Patient","id":"p%d","gender":"unknown","birthDate":"1901"},"request":{"method":"PUT","url":"Patient/p%d"}},
				 {"resource":{"resourceType":"Observation","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"c3"}]},"subject":{"reference":"Patient/p9"}},"request":{"method":"POST","url":"Observation"}},
				 {"request":{"method":"GET","url":"Patient/nobody"}}]}`, i%300, i%300)), "")
			}
			if i%500 == 499 {
				if got, want := answer(s), answer(fresh(s)); got != want {
					t.Fatalf("after %d writes:\n%s\nfresh:\n%s", i+1, got, want)
				}
				if err := checkStore(s); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// The store's own tables, changed in place: enough writes to rebuild
	// the key and date indexes.
	write(base, 6000)
	p := base.types["Patient"]
	if p.base != nil || p.own.ix.keys["identifier"].built == 0 || len(p.own.ix.dates["birthdate"].tail) >= 2400 {
		t.Errorf("the base's indexes were not rebuilt along the way")
	}
	// A clone's writes, to its own layer.
	clone := base.Clone()
	write(clone, 2500)
	if c := clone.types["Patient"]; c.base == nil || len(c.own.entries) == 0 || len(c.own.entries) >= 300 {
		t.Errorf("the clone's writes should be in an own layer over the base")
	}
	if got, want := answer(base), answer(fresh(base)); got != want {
		t.Errorf("the clone's writes changed its origin's answers")
	}
}
