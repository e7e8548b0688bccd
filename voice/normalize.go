package voice

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// token is one normalised word with the span of original text it stands
// for: from byte start of turn turn's text to byte end of turn eturn's
// (eturn is turn, unless a number runs on into the next turn).
type token struct {
	text        string
	turn, eturn int
	start, end  int
}

// rawWord is one word of the original text before normalisation.
type rawWord struct {
	text       string // as written (NFKC and folding come later)
	turn       int
	start, end int
	brk        bool // a sentence break (. ! ? ; :) precedes it
	dollar     bool // written with a leading $
	percent    bool // written with a trailing %
}

// Normalize returns text as the default matcher reads it: the normalised
// words joined by single spaces. It is what both a phrase and a turn are
// turned into before they are compared, so Normalize(a) == Normalize(b)
// means the matcher treats a and b as the same words:
//
//	Normalize("Um, your member’s ID is W one two three") == "your member id is w 123"
//	Normalize("It's twenty-one") == "it is 21"
//
// See the package documentation for every rule.
func Normalize(text string) string {
	toks := normalizeWords(splitWords(text, 0, nil))
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// normalizeText is the token form of Normalize for one turn.
func normalizeText(text string, turn int) []token {
	return normalizeWords(splitWords(text, turn, nil))
}

// isApostrophe reports the characters read as an apostrophe.
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '’', '‘', 'ʼ', '`', '´', '′':
		return true
	}
	return false
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

func isDigitByte(s string, i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }

// splitWords cuts text into words with their byte spans. A word is a run of
// letters, numbers and marks, with apostrophes inside it, and with '.', ':'
// or '/' between digits and ',' before a group of exactly three digits
// ("3.14", "10:30", "3/5", "3,000"). Invalid UTF-8 reads as U+FFFD, which
// is no letter, so it separates words.
func splitWords(text string, turn int, out []rawWord) []rawWord {
	brk := false
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			switch r {
			case '.', '!', '?', ';', ':', '…', '。':
				brk = true
			}
			i += size
			continue
		}
		start := i
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if isWordRune(r) {
				i += size
				continue
			}
			// apostrophe between a word character and a letter
			if isApostrophe(r) && i+size < len(text) {
				if next, _ := utf8.DecodeRuneInString(text[i+size:]); unicode.IsLetter(next) {
					i += size
					continue
				}
			}
			if (r == '.' || r == ':' || r == '/') && isDigitByte(text, i-1) && isDigitByte(text, i+1) {
				i++
				continue
			}
			if r == ',' && isDigitByte(text, i-1) && isDigitByte(text, i+1) && isDigitByte(text, i+2) &&
				isDigitByte(text, i+3) && !isDigitByte(text, i+4) {
				i++
				continue
			}
			break
		}
		w := rawWord{text: text[start:i], turn: turn, start: start, end: i, brk: brk}
		w.dollar = start > 0 && text[start-1] == '$'
		w.percent = i < len(text) && text[i] == '%'
		out = append(out, w)
		brk = false
	}
	return out
}

// foldSlow applies NFKC and case folding and strips diacritics.
func foldSlow(s string) string {
	s = norm.NFKC.String(s)
	s = cases.Fold().String(s)
	// The stripping chain is not safe for concurrent use, and building
	// one allocates some 16 KB of buffers: a pool, not one per word.
	t := stripMarks.Get().(transform.Transformer)
	if out, _, err := transform.String(t, s); err == nil {
		s = out
	}
	stripMarks.Put(t)
	return s
}

// stripMarks holds transformers that remove combining marks (category Mn)
// from a string, recomposing what is left.
var stripMarks = sync.Pool{New: func() any {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}}

// foldWord applies NFKC, case folding and diacritic stripping to one word,
// with a fast path for ASCII.
func foldWord(s string) string {
	ascii := true
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if c >= 'A' && c <= 'Z' {
			lower = false
		}
	}
	if ascii {
		if lower {
			return s
		}
		return strings.ToLower(s)
	}
	if t, ok := straightenApostrophes(s); ok {
		return strings.ToLower(t)
	}
	// apostrophes of every shape read as a straight one
	return strings.Map(straightApostrophe, foldSlow(s))
}

func straightApostrophe(r rune) rune {
	if isApostrophe(r) {
		return '\''
	}
	return r
}

// straightenApostrophes returns s with its typographic apostrophes (’ ‘
// ʼ, which the folding stages leave as they are) made straight, when
// nothing else in it is outside ASCII: "member’s" is as common in a
// transcript as "member's", and then reads as fast.
func straightenApostrophes(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		case r == '’' || r == '‘' || r == 'ʼ':
			b = append(b, '\'')
		default:
			return "", false
		}
	}
	return string(b), true
}

// word is a folded word in the middle of normalisation.
type word struct {
	text             string
	turn, start, end int
	brk              bool
	dollar, percent  bool
	hasDigit         bool
}

// normalizeWords runs every stage after splitting: folding, sub-splitting
// (letters from digits), contractions, fillers, numbers, dates and spelled
// letters.
func normalizeWords(raw []rawWord) []token {
	words := make([]word, 0, len(raw)+len(raw)/4)
	for _, r := range raw {
		f := foldWord(r.text)
		if isLowerASCIILetters(f) {
			// The common word, which subSplit would return whole: no
			// slice of parts for it.
			words = append(words, word{text: f, turn: r.turn, start: r.start, end: r.end, brk: r.brk, dollar: r.dollar, percent: r.percent})
			continue
		}
		first := true
		for _, part := range subSplit(f) {
			w := word{text: part, turn: r.turn, start: r.start, end: r.end, dollar: r.dollar, percent: r.percent}
			if first {
				w.brk = r.brk
				first = false
			}
			words = append(words, w)
		}
	}
	words = expandContractions(words)
	words = dropFillers(words)
	for i := range words {
		words[i].hasDigit = strings.ContainsAny(words[i].text, "0123456789")
	}
	toks := numbers(words)
	toks = dates(toks)
	toks = joinLetters(toks)
	return toks
}

// isLowerASCIILetters reports whether s is one or more of a to z.
func isLowerASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// subSplit cuts a folded word into parts: at characters folding produced
// that are not word characters (NFKC turns "½" into "1⁄2"), and between
// letters and digits ("w123" -> "w", "123"; "10km" -> "10", "km"), except
// for ordinals ("21st") and the digit forms splitWords keeps ("3.14",
// "3/5", "10:30", "3,000").
func subSplit(s string) []string {
	if isOrdinalDigits(s) {
		return []string{s}
	}
	var out []string
	start := -1
	kind := 0 // 1 letter, 2 digit
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, s[start:end])
		}
		start = -1
		kind = 0
	}
	for i, r := range s {
		var k int
		switch {
		case r >= '0' && r <= '9', unicode.IsNumber(r):
			k = 2
		case unicode.IsLetter(r) || unicode.IsMark(r) || r == '\'':
			k = 1
		case (r == '.' || r == ':' || r == '/' || r == ',') && kind == 2 && isDigitByte(s, i+1):
			continue // digit punctuation stays in the digit part
		default:
			flush(i)
			continue
		}
		if start >= 0 && k != kind {
			if !(k == 1 && r == '\'') {
				flush(i)
			}
		}
		if start < 0 {
			start, kind = i, k
		}
	}
	flush(len(s))
	for i := 0; i < len(out); i++ {
		out[i] = strings.Trim(out[i], "'")
		if kindOfPart(out[i]) == 2 {
			out[i] = canonicalDigits(out[i])
			// a date with its year: "3/5/2024" -> "3/5", "2024"
			if k := strings.LastIndexByte(out[i], '/'); k > 0 && strings.Count(out[i], "/") == 2 {
				out = append(out[:i+1], append([]string{out[i][k+1:]}, out[i+1:]...)...)
				out[i] = out[i][:k]
				i++
			}
		}
	}
	// drop parts that were only apostrophes
	n := 0
	for _, p := range out {
		if p != "" {
			out[n] = p
			n++
		}
	}
	return out[:n]
}

func kindOfPart(s string) int {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		return 2
	}
	return 1
}

// canonicalDigits writes a digit word in its one form: other decimal
// digits as ASCII, thousands commas dropped ("3,000" -> "3000"), a clock
// time's colon dropped ("10:30" -> "1030", as "ten thirty" reads), a date's
// leading zeros dropped ("03/05" -> "3/5").
func canonicalDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '.', r == '/':
			b.WriteRune(r)
		case r == ',' || r == ':':
		case unicode.IsDigit(r):
			b.WriteRune('0' + rune(digitValue(r)))
		default:
			b.WriteRune(r)
		}
	}
	s = b.String()
	if strings.Contains(s, "/") {
		parts := strings.Split(s, "/")
		for i, p := range parts {
			if t := strings.TrimLeft(p, "0"); t != "" {
				parts[i] = t
			}
		}
		s = strings.Join(parts, "/")
	}
	return s
}

// digitValue is the value of a decimal digit of any script.
func digitValue(r rune) int {
	for _, rt := range unicode.Nd.R16 {
		if uint16(r) >= rt.Lo && uint16(r) <= rt.Hi && r <= 0xFFFF {
			return int(r-rune(rt.Lo)) % 10
		}
	}
	for _, rt := range unicode.Nd.R32 {
		if uint32(r) >= rt.Lo && uint32(r) <= rt.Hi {
			return int(r-rune(rt.Lo)) % 10
		}
	}
	return 0
}

// isOrdinalDigits reports "1st", "22nd", "3rd", "10th".
func isOrdinalDigits(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || len(s)-i != 2 {
		return false
	}
	switch s[i:] {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// Contractions.
var (
	// whole words, apostrophe or not: without it as speech-to-text often
	// writes them, except words that are also ordinary words (its, id,
	// well, were, shed, wed, lets, hell, shell), which are left alone
	contractionWords = wordMap[string]{
		{"'cause", "because"}, {"ain't", "is not"}, {"arent", "are not"}, {"can't", "can not"},
		{"cannot", "can not"}, {"cant", "can not"}, {"cos", "because"}, {"coulda", "could have"},
		{"couldnt", "could not"}, {"coz", "because"}, {"cuz", "because"}, {"didnt", "did not"},
		{"doesnt", "does not"}, {"dont", "do not"}, {"dunno", "do not know"}, {"gimme", "give me"},
		{"gonna", "going to"}, {"gotcha", "got you"}, {"gotta", "got to"}, {"hadnt", "had not"},
		{"hafta", "have to"}, {"hasnt", "has not"}, {"hasta", "has to"}, {"havent", "have not"},
		{"heres", "here is"}, {"im", "i am"}, {"isnt", "is not"}, {"ive", "i have"},
		{"kinda", "kind of"}, {"lemme", "let me"}, {"let's", "let us"}, {"lotta", "lot of"},
		{"ma'am", "madam"}, {"musta", "must have"}, {"o'clock", "oclock"}, {"oughta", "ought to"},
		{"outta", "out of"}, {"shan't", "shall not"}, {"shoulda", "should have"}, {"shouldnt", "should not"},
		{"sorta", "sort of"}, {"thats", "that is"}, {"theres", "there is"}, {"theyre", "they are"},
		{"theyve", "they have"}, {"tryna", "trying to"}, {"wanna", "want to"}, {"wasnt", "was not"},
		{"werent", "were not"}, {"whats", "what is"}, {"wheres", "where is"}, {"whos", "who is"},
		{"won't", "will not"}, {"wont", "will not"}, {"woulda", "would have"}, {"wouldnt", "would not"},
		{"y'all", "you all"}, {"ya'll", "you all"}, {"youll", "you will"}, {"youre", "you are"},
		{"youve", "you have"},
	}
	// words whose 's is "is" (or "has" before a participle) rather than a
	// possessive
	sIsWords = wordSet{
		"anyone", "anything", "everybody", "everyone", "everything", "he", "here", "how", "it", "nobody",
		"nothing", "she", "somebody", "someone", "something", "that", "there", "this", "what", "when",
		"where", "who", "why",
	}
	hasNext = wordSet{
		"been", "got", "gotten", "had",
	}
	isNext = wordSet{
		"going", "gonna", "not",
	}
	hadNext = wordSet{
		"been", "better", "got", "gotten", "had",
	}
	fillers = wordSet{
		"ah", "ahh", "eh", "er", "erm", "hm", "hmm", "hmmm", "mm", "mmm",
		"uh", "uhh", "uhhh", "uhm", "um", "umm", "ummm",
	}
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// expandContractions rewrites contractions as their full words, all
// pointing at the span of the contracted word.
func expandContractions(in []word) []word {
	out := in[:0:0]
	out = make([]word, 0, len(in)+len(in)/8)
	emit := func(w word, text string) {
		if isPlainASCIIWord(text) {
			w.text = text
			out = append(out, w)
			return
		}
		for j, part := range strings.Fields(text) {
			c := w
			c.text = part
			if j > 0 {
				c.brk = false
			}
			out = append(out, c)
		}
	}
	for i, w := range in {
		next := ""
		if i+1 < len(in) {
			next = in[i+1].text
		}
		if full, ok := contractionWords.get(w.text); ok {
			emit(w, full)
			continue
		}
		k := strings.LastIndexByte(w.text, '\'')
		if k <= 0 {
			emit(w, w.text)
			continue
		}
		stem, suffix := w.text[:k], w.text[k+1:]
		switch {
		case suffix == "t" && strings.HasSuffix(stem, "n") && len(stem) > 1:
			emit(w, stem[:len(stem)-1]+" not")
		case suffix == "m":
			emit(w, stem+" am")
		case suffix == "re":
			emit(w, stem+" are")
		case suffix == "ve":
			emit(w, stem+" have")
		case suffix == "ll":
			emit(w, stem+" will")
		case suffix == "d":
			if hadNext.has(next) {
				emit(w, stem+" had")
			} else {
				emit(w, stem+" would")
			}
		case suffix == "s":
			switch {
			case hasNext.has(next):
				emit(w, stem+" has")
			case sIsWords.has(stem) || isNext.has(next):
				emit(w, stem+" is")
			default: // possessive: dropped
				emit(w, stem)
			}
		default:
			// an apostrophe inside a name (o'brien): joined
			emit(w, strings.ReplaceAll(w.text, "'", ""))
		}
	}
	return out
}

// isPlainASCIIWord reports whether s is ASCII with no white space or
// control character: one word, as strings.Fields would read it.
func isPlainASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return s != ""
}

// dropFillers removes filler words; "per cent" becomes "percent" here too.
func dropFillers(in []word) []word {
	out := in[:0]
	for i := 0; i < len(in); i++ {
		w := in[i]
		if fillers.has(w.text) {
			if i+1 < len(in) && w.brk {
				in[i+1].brk = true
			}
			continue
		}
		// "dash" or "hyphen" spoken inside an ID ("R dash 4 4 7 1")
		if (w.text == "dash" || w.text == "hyphen") && len(out) > 0 && i+1 < len(in) &&
			isIDPart(out[len(out)-1].text) && isIDPart(in[i+1].text) {
			continue
		}
		// "G as in George": the letter alone
		if isSingleLetter(w.text) && i+3 < len(in) && in[i+1].text == "as" && in[i+2].text == "in" &&
			strings.HasPrefix(in[i+3].text, w.text) {
			out = append(out, w)
			i += 3
			continue
		}
		if full, ok := abbreviations.get(w.text); ok {
			w.text = full
		}
		if w.text == "per" && i+1 < len(in) && in[i+1].text == "cent" {
			w.text = "percent"
			w.end = in[i+1].end
			i++
		}
		out = append(out, w)
	}
	return out
}

// abbreviations are written out.
var abbreviations = wordMap[string]{
	{"approx", "approximately"}, {"appt", "appointment"}, {"apt", "apartment"}, {"dept", "department"},
	{"dr", "doctor"}, {"info", "information"}, {"mr", "mister"}, {"mrs", "missus"},
	{"ok", "okay"},
}

// isIDPart reports a word that can sit beside a spoken dash in an ID: a
// single letter, digits, or a number word.
func isIDPart(s string) bool {
	if isSingleLetter(s) || hasDigit(s) {
		return true
	}
	_, ok := numberWords.get(s)
	return ok || s == "oh"
}

// joinLetters joins runs of two or more single letters, as IDs are spelled
// out: "w x y" -> "wxy".
func joinLetters(in []token) []token {
	out := in[:0]
	for i := 0; i < len(in); {
		j := i
		for j < len(in) && isSingleLetter(in[j].text) && (j == i || in[j].turn == in[i].turn) {
			j++
		}
		if j-i >= 2 {
			t := in[i]
			var b strings.Builder
			for k := i; k < j; k++ {
				b.WriteString(in[k].text)
			}
			t.text = b.String()
			t.end, t.eturn = in[j-1].end, in[j-1].eturn
			out = append(out, t)
			i = j
			continue
		}
		out = append(out, in[i])
		i++
	}
	return out
}

func isSingleLetter(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return size == len(s) && size > 0 && unicode.IsLetter(r)
}

// Number words.
type numKind int

const (
	numNone numKind = iota
	numUnit         // zero..nine
	numTeen         // ten..nineteen
	numTens         // twenty..ninety
	numHundred
	numScale // thousand, million, ...
	numRaw   // digits as written: a scale word may follow, nothing else extends them
)

type numWord struct {
	kind    numKind
	value   uint64
	ordinal bool
}

var numberWords = wordMap[numWord]{
	{"billion", numWord{kind: numScale, value: 1000000000}}, {"billionth", numWord{kind: numScale, value: 1000000000, ordinal: true}},
	{"eight", numWord{kind: numUnit, value: 8}}, {"eighteen", numWord{kind: numTeen, value: 18}},
	{"eighteenth", numWord{kind: numTeen, value: 18, ordinal: true}}, {"eighth", numWord{kind: numUnit, value: 8, ordinal: true}},
	{"eightieth", numWord{kind: numTens, value: 80, ordinal: true}}, {"eighty", numWord{kind: numTens, value: 80}},
	{"eleven", numWord{kind: numTeen, value: 11}}, {"eleventh", numWord{kind: numTeen, value: 11, ordinal: true}},
	{"fifteen", numWord{kind: numTeen, value: 15}}, {"fifteenth", numWord{kind: numTeen, value: 15, ordinal: true}},
	{"fifth", numWord{kind: numUnit, value: 5, ordinal: true}}, {"fiftieth", numWord{kind: numTens, value: 50, ordinal: true}},
	{"fifty", numWord{kind: numTens, value: 50}}, {"first", numWord{kind: numUnit, value: 1, ordinal: true}},
	{"five", numWord{kind: numUnit, value: 5}}, {"fortieth", numWord{kind: numTens, value: 40, ordinal: true}},
	{"forty", numWord{kind: numTens, value: 40}}, {"four", numWord{kind: numUnit, value: 4}},
	{"fourteen", numWord{kind: numTeen, value: 14}}, {"fourteenth", numWord{kind: numTeen, value: 14, ordinal: true}},
	{"fourth", numWord{kind: numUnit, value: 4, ordinal: true}}, {"fourty", numWord{kind: numTens, value: 40}},
	{"hundred", numWord{kind: numHundred, value: 100}}, {"hundredth", numWord{kind: numHundred, value: 100, ordinal: true}},
	{"million", numWord{kind: numScale, value: 1000000}}, {"millionth", numWord{kind: numScale, value: 1000000, ordinal: true}},
	{"nine", numWord{kind: numUnit, value: 9}}, {"nineteen", numWord{kind: numTeen, value: 19}},
	{"nineteenth", numWord{kind: numTeen, value: 19, ordinal: true}}, {"ninetieth", numWord{kind: numTens, value: 90, ordinal: true}},
	{"ninety", numWord{kind: numTens, value: 90}}, {"ninth", numWord{kind: numUnit, value: 9, ordinal: true}},
	{"one", numWord{kind: numUnit, value: 1}}, {"second", numWord{kind: numUnit, value: 2, ordinal: true}},
	{"seven", numWord{kind: numUnit, value: 7}}, {"seventeen", numWord{kind: numTeen, value: 17}},
	{"seventeenth", numWord{kind: numTeen, value: 17, ordinal: true}}, {"seventh", numWord{kind: numUnit, value: 7, ordinal: true}},
	{"seventieth", numWord{kind: numTens, value: 70, ordinal: true}}, {"seventy", numWord{kind: numTens, value: 70}},
	{"six", numWord{kind: numUnit, value: 6}}, {"sixteen", numWord{kind: numTeen, value: 16}},
	{"sixteenth", numWord{kind: numTeen, value: 16, ordinal: true}}, {"sixth", numWord{kind: numUnit, value: 6, ordinal: true}},
	{"sixtieth", numWord{kind: numTens, value: 60, ordinal: true}}, {"sixty", numWord{kind: numTens, value: 60}},
	{"ten", numWord{kind: numTeen, value: 10}}, {"tenth", numWord{kind: numTeen, value: 10, ordinal: true}},
	{"third", numWord{kind: numUnit, value: 3, ordinal: true}}, {"thirteen", numWord{kind: numTeen, value: 13}},
	{"thirteenth", numWord{kind: numTeen, value: 13, ordinal: true}}, {"thirtieth", numWord{kind: numTens, value: 30, ordinal: true}},
	{"thirty", numWord{kind: numTens, value: 30}}, {"thousand", numWord{kind: numScale, value: 1000}},
	{"thousandth", numWord{kind: numScale, value: 1000, ordinal: true}}, {"three", numWord{kind: numUnit, value: 3}},
	{"trillion", numWord{kind: numScale, value: 1000000000000}}, {"trillionth", numWord{kind: numScale, value: 1000000000000, ordinal: true}},
	{"twelfth", numWord{kind: numTeen, value: 12, ordinal: true}}, {"twelve", numWord{kind: numTeen, value: 12}},
	{"twentieth", numWord{kind: numTens, value: 20, ordinal: true}}, {"twenty", numWord{kind: numTens, value: 20}},
	{"two", numWord{kind: numUnit, value: 2}}, {"zero", numWord{kind: numUnit, value: 0}},
	{"zeroth", numWord{kind: numUnit, value: 0, ordinal: true}},
}

// digitWord returns the digit a word spells inside a run of digits: a unit
// word, "oh"/"o" (zero), or a single raw digit.
func digitWord(s string) (byte, bool) {
	if nw, ok := numberWords.get(s); ok && nw.kind == numUnit && !nw.ordinal {
		return byte('0' + nw.value), true
	}
	switch s {
	case "oh", "o":
		return '0', true
	}
	if len(s) == 1 && s[0] >= '0' && s[0] <= '9' {
		return s[0], true
	}
	return 0, false
}

func isPlainDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isNumeric reports words that take part in a run of numbers.
func isNumeric(in []word, i int) bool {
	s := in[i].text
	if _, ok := numberWords.get(s); ok {
		return true
	}
	if isPlainDigits(s) {
		return true
	}
	return false
}

// numberRun builds one run's digit string. Chunks follow the cardinal
// grammar (units, teens and tens, hundreds, scales); a word that cannot
// extend the chunk before it starts a new one, and the chunks are written
// one after another, as digits spoken in groups are: "five twenty four" ->
// "524", "nineteen ninety nine" -> "1999", "four five six" -> "456".
type numberRun struct {
	out     strings.Builder
	total   uint64  // completed scale groups of the chunk
	part    uint64  // the group under construction, below 1000
	last    numKind // kind of the last word of the chunk; numNone: no chunk
	scale   uint64  // the smallest scale used in the chunk so far
	hundred bool    // the part has its hundreds
	open    bool
	ordinal bool
	decimal bool // after "point": digits only
}

func (r *numberRun) flush() {
	if r.open {
		r.out.WriteString(strconv.FormatUint(r.total+r.part, 10))
	}
	r.total, r.part, r.last, r.scale, r.hundred, r.open = 0, 0, numNone, 0, false, false
}

// add feeds one number word: it extends the chunk under construction when
// the grammar allows, and starts a new chunk otherwise.
func (r *numberRun) add(nw numWord) {
	if r.decimal {
		if nw.kind == numUnit {
			r.out.WriteByte(byte('0' + nw.value))
			return
		}
		r.decimal = false
	}
	switch nw.kind {
	case numUnit:
		// zero never completes a number: "twenty zero" is 200, as digits
		if r.open && nw.value > 0 && (r.last == numTens && r.part%10 == 0 || r.last == numHundred || r.last == numScale) {
			r.part += nw.value
		} else {
			r.flush()
			r.part, r.open = nw.value, true
		}
	case numTeen, numTens:
		if r.open && (r.last == numHundred || r.last == numScale) {
			r.part += nw.value
		} else {
			r.flush()
			r.part, r.open = nw.value, true
		}
	case numHundred:
		if r.open && !r.hundred && r.part > 0 && r.part < 100 && r.last != numScale {
			r.part *= 100
		} else {
			r.flush()
			r.part, r.open = 100, true
		}
		r.hundred = true
	case numScale:
		if r.open && r.last != numScale && (r.scale == 0 || nw.value < r.scale) && r.part > 0 {
			r.total += r.part * nw.value
			r.part = 0
			r.scale = nw.value
			r.hundred = false
		} else {
			r.flush()
			r.total, r.open, r.scale = nw.value, true, nw.value
		}
	}
	r.last = nw.kind
	if nw.ordinal {
		r.ordinal = true
	}
}

// addDigits feeds a raw digit string or spelled digits.
func (r *numberRun) addDigits(d string) {
	if r.decimal {
		r.out.WriteString(d)
		return
	}
	// a raw number below 1000 can take a scale after it ("200 thousand")
	if v, err := strconv.ParseUint(d, 10, 64); err == nil && len(d) <= 3 && d[0] != '0' {
		r.flush()
		r.part, r.open, r.last = v, true, numRaw
		return
	}
	r.flush()
	r.out.WriteString(d)
}

func ordinalSuffix(digits string) string {
	n := len(digits)
	if n >= 2 && digits[n-2] == '1' {
		return "th"
	}
	switch digits[n-1] {
	case '1':
		return "st"
	case '2':
		return "nd"
	case '3':
		return "rd"
	}
	return "th"
}

// numbers replaces every run of number words and digits with one token.
func numbers(in []word) []token {
	out := make([]token, 0, len(in))
	for i := 0; i < len(in); {
		if !startsNumber(in, i) {
			t := token{text: in[i].text, turn: in[i].turn, eturn: in[i].turn, start: in[i].start, end: in[i].end}
			if in[i].text == "dollar" {
				t.text = "dollars"
			}
			out = append(out, t)
			if in[i].hasDigit && in[i].percent {
				out = append(out, token{text: "percent", turn: t.turn, eturn: t.turn, start: t.start, end: t.end})
			}
			i++
			continue
		}
		var r numberRun
		first := i
		dollar, percent := false, false
		for i < len(in) {
			w := in[i]
			if i > first && w.brk {
				break
			}
			if r.ordinal {
				break // an ordinal ends its run
			}
			s := w.text
			switch {
			case (s == "double" || s == "triple") && i+1 < len(in) && !in[i+1].brk:
				d, ok := digitWord(in[i+1].text)
				if !ok {
					goto done
				}
				r.flush()
				n := 2
				if s == "triple" {
					n = 3
				}
				r.out.WriteString(strings.Repeat(string(d), n))
				i += 2
				dollar, percent = dollar || in[i-1].dollar, percent || in[i-1].percent
				continue
			case s == "oh" || s == "o":
				if !zeroHere(in, i, first) {
					goto done
				}
				r.flush()
				r.out.WriteByte('0')
			case s == "a" && i+1 < len(in) && (in[i+1].text == "hundred" || in[i+1].text == "thousand" || in[i+1].text == "million"):
				r.flush()
				r.part, r.open, r.last = 1, true, numUnit
			case s == "and" && i > first && r.open && (r.last == numHundred || r.last == numScale) && i+1 < len(in) &&
				isSmallNumber(in[i+1].text):
				// "two hundred and fifty": the and is part of the number
			case s == "point" && i > first && i+1 < len(in) && !in[i+1].brk && isDecimalDigit(in[i+1].text):
				r.flush()
				r.out.WriteByte('.')
				r.decimal = true
			case isPlainDigits(s):
				r.addDigits(s)
				if i == first && first > 0 && isMonth(in[first-1].text) && len(s) <= 2 {
					// a day after its month ends the run: "July 25 2012"
					i++
					goto done
				}
			default:
				nw, ok := numberWords.get(s)
				if !ok {
					goto done
				}
				r.add(nw)
			}
			dollar, percent = dollar || w.dollar, percent || w.percent
			i++
		}
	done:
		r.flush()
		text := r.out.String()
		if r.ordinal {
			text += ordinalSuffix(text)
		}
		if i == first { // nothing consumed (cannot happen, but never loop)
			out = append(out, token{text: in[i].text, turn: in[i].turn, eturn: in[i].turn, start: in[i].start, end: in[i].end})
			i++
			continue
		}
		last := in[i-1]
		out = append(out, token{text: text, turn: in[first].turn, eturn: last.turn, start: in[first].start, end: last.end})
		if percent {
			out = append(out, token{text: "percent", turn: last.turn, eturn: last.turn, start: last.start, end: last.end})
		}
		if dollar && !(i < len(in) && (in[i].text == "dollars" || in[i].text == "dollar")) {
			out = append(out, token{text: "dollars", turn: last.turn, eturn: last.turn, start: last.start, end: last.end})
		}
	}
	return out
}

// startsNumber reports whether a run of numbers starts at word i.
func startsNumber(in []word, i int) bool {
	s := in[i].text
	switch s {
	case "double", "triple":
		if i+1 < len(in) {
			_, ok := digitWord(in[i+1].text)
			return ok
		}
		return false
	case "oh", "o":
		return zeroHere(in, i, i)
	case "a":
		return i+1 < len(in) && (in[i+1].text == "hundred" || in[i+1].text == "thousand" || in[i+1].text == "million")
	}
	return isNumeric(in, i)
}

// zeroHere reports whether "oh" or "o" at i is the digit zero: inside a
// run (after a number word) or before two more digits.
func zeroHere(in []word, i, first int) bool {
	if i > first {
		if prev := in[i-1].text; isNumericText(prev) || prev == "double" || prev == "triple" {
			return true
		}
	}
	// at the start of a run: two more number words follow ("oh two three",
	// not "oh, two things")
	return i+2 < len(in) && !in[i+1].brk && !in[i+2].brk && isNumericText(in[i+1].text) &&
		in[i+1].text != "o" && in[i+1].text != "oh" && isNumericText(in[i+2].text)
}

func isNumericText(s string) bool {
	if _, ok := numberWords.get(s); ok {
		return true
	}
	return isPlainDigits(s) || s == "oh" || s == "o"
}

func isSmallNumber(s string) bool {
	nw, ok := numberWords.get(s)
	return ok && (nw.kind == numUnit || nw.kind == numTeen || nw.kind == numTens) && nw.value > 0
}

func isDecimalDigit(s string) bool {
	if _, ok := digitWord(s); ok {
		return true
	}
	return isPlainDigits(s)
}

// Dates.
var months = wordMap[int]{
	{"apr", 4}, {"april", 4}, {"aug", 8}, {"august", 8},
	{"dec", 12}, {"december", 12}, {"feb", 2}, {"february", 2},
	{"jan", 1}, {"january", 1}, {"jul", 7}, {"july", 7},
	{"jun", 6}, {"june", 6}, {"mar", 3}, {"march", 3},
	{"may", 5}, {"nov", 11}, {"november", 11}, {"oct", 10},
	{"october", 10}, {"sep", 9}, {"sept", 9}, {"september", 9},
}

func isMonth(w string) bool {
	_, ok := months.get(w)
	return ok
}

// dayOf reads a day of the month from a number token ("5", "5th").
func dayOf(s string) (int, bool) {
	s = strings.TrimRight(s, "stndrh")
	if !isPlainDigits(s) || len(s) > 2 {
		return 0, false
	}
	d, _ := strconv.Atoi(s)
	return d, d >= 1 && d <= 31
}

// dates writes a month and a day as "m/d" ("March fifth", "March 5th",
// "the 5th of March", "5 March", "3/5"); a year stays a word of its own, as "3/5/2024"
// is split into "3/5" and "2024".
func dates(in []token) []token {
	out := in[:0]
	for i := 0; i < len(in); i++ {
		t := in[i]
		m, d, end := 0, 0, i
		if mo, ok := months.get(t.text); ok {
			j := i + 1
			if j < len(in) && in[j].text == "the" {
				j++
			}
			if j < len(in) {
				if day, ok := dayOf(in[j].text); ok {
					m, d, end = mo, day, j
				}
			}
		} else if day, ok := dayOf(t.text); ok && i+2 < len(in) && in[i+1].text == "of" {
			if mo, ok := months.get(in[i+2].text); ok {
				m, d, end = mo, day, i+2
			}
		} else if ok && i+1 < len(in) && in[i+1].text != "may" {
			// "25 July" (not "2 may", which is more often a verb)
			if mo, ok := months.get(in[i+1].text); ok {
				m, d, end = mo, day, i+1
			}
		}
		if m == 0 {
			out = append(out, t)
			continue
		}
		text := strconv.Itoa(m) + "/" + strconv.Itoa(d)
		out = append(out, token{text: text, turn: t.turn, eturn: in[end].eturn, start: t.start, end: in[end].end})
		i = end
	}
	return out
}
