package report

import (
	"encoding/xml"
	"io"
)

// JUnit XML, in the shape CI systems read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr,omitempty"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	seconds    float64
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Time      string `xml:"time,attr"`
	// Properties of one case, as pytest's record_property writes them
	// (the benchmark's per-criterion figures).
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitMessage    `xml:"failure,omitempty"`
	Error      *junitMessage    `xml:"error,omitempty"`
	Skipped    *junitMessage    `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// add appends a test case that took seconds and keeps the counts.
func (s *junitSuite) add(c junitCase, seconds float64) {
	c.Time = Decimal(seconds)
	s.Cases = append(s.Cases, c)
	s.Tests++
	s.seconds += seconds
	s.Time = Decimal(s.seconds)
	if c.Failure != nil {
		s.Failures++
	}
	if c.Error != nil {
		s.Errors++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
}

func writeJUnit(w io.Writer, name string, suites []junitSuite) error {
	doc := junitSuites{Name: name, Suites: suites}
	total := 0.0
	for i := range suites {
		if suites[i].Time == "" {
			suites[i].Time = "0"
		}
		doc.Tests += suites[i].Tests
		doc.Failures += suites[i].Failures
		doc.Errors += suites[i].Errors
		total += suites[i].seconds
	}
	doc.Time = Decimal(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
