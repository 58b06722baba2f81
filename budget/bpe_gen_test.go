package budget

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Deterministic test inputs: every generator takes a seed, so a failure can
// be reproduced and no large file needs to be committed.

// hostile is an alphabet chosen to break pre-tokenizers: every whitespace
// rune, each Unicode class the patterns distinguish (Lu, Ll, Lt, Lm, Lo, M,
// Nd, Nl, No), contractions in both cases, emoji sequences, JSON escapes,
// special-token strings, and bytes that are not UTF-8.
var hostile = []string{
	// ASCII letters, digits and punctuation
	"a", "b", "s", "t", "e", "l", "Z", "S", "T", "R", "L", "0", "7", "9", "42",
	".", ",", "!", "?", "-", "_", "/", "\\", "(", ")", "[", "]", "{", "}", ":", ";", "\"", "#", "@", "*", "<", ">", "|", "`", "~", "^", "=", "+", "&", "%", "$",
	// contractions and apostrophes
	"'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'m", "'ll", "'LL", "'d", "'D", "’", "n't",
	// whitespace: all of \s, in runs
	" ", " ", " ", "  ", "\t", "\n", "\n", "\r", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2005", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\n\n", " \n", "\t\n ",
	// not whitespace, though it looks like it
	"\u200b", "\u200d", "\u2060", "\ufeff", "\u180e", "\u001c", "\u001f",
	// letters of each class
	"é", "É", "ß", "Σ", "σ", "ǅ", "ʰ", "ー", "々", "中", "国", "你好", "あ", "カ", "한", "국", "ก", "ไทย", "ب", "العربية", "א", "ह", "हिन्दी", "Ω", "ж", "Ж", "ﬁ",
	// combining marks, spacing marks, enclosing marks
	"\u0301", "\u0308", "\u20dd", "\u093f", "\u0e31", "\u302a",
	// numbers other than ASCII digits
	"٣", "०", "Ⅻ", "²", "①", "½", "𝟘",
	// emoji: ZWJ sequences, skin tones, flags, keycaps, variation selectors
	"👍", "👍🏽", "👨‍👩‍👧", "🇨🇳", "🇺🇸", "1\ufe0f\u20e3", "❤\ufe0f", "🏳️‍🌈", "😀",
	// JSON escapes and special-token strings, which count as plain text
	`\n`, `\"`, `\u4e2d`, `\\`, "<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>",
	// replacement rune, and bytes that are not UTF-8
	"\ufffd", "\xff", "\xe4\xb8", "\xed\xa0\x80", "\xc0\xaf",
}

// hostileString returns a string of up to maxParts alphabet entries; now and
// then one entry is repeated many times, to make long pieces.
func hostileString(r *rand.Rand, maxParts int) string {
	var b strings.Builder
	for range 1 + r.IntN(maxParts) {
		s := hostile[r.IntN(len(hostile))]
		if r.IntN(40) == 0 {
			s = strings.Repeat(s, 10+r.IntN(60))
		}
		b.WriteString(s)
	}
	return b.String()
}

// Phrases for mixed documents, in the register of the travel-policy corpus.
var (
	zhPhrases = []string{
		"北京", "上海", "深圳", "住宿标准", "每间夜", "差旅费用", "报销", "员工", "出差", "政策",
		"自", "起", "生效", "适用于", "不适用于", "超出部分", "由个人承担", "经部门负责人批准",
		"高铁二等座", "经济舱", "发票", "税费", "城市", "等级", "第一类", "上限", "人民币", "元",
		"请注意", "本规定", "废止", "替代", "版本", "有效期", "日期", "问题", "答案", "引用",
		"根据", "以下", "证据", "当前", "旧版", "比较", "酒店", "交通", "餐饮补贴", "每日",
	}
	zhPunct   = []string{"，", "。", "：", "；", "、", "（", "）", "“", "”", "！", "？", "《", "》"}
	enPhrases = []string{
		"the", "lodging", "limit", "is", "per", "room-night", "in", "Beijing", "from", "until",
		"policy", "travel", "supersedes", "applies", "to", "employees", "on", "business", "trips",
		"amount", "CNY", "valid", "source", "lines", "answer", "only", "evidence", "cite", "refuse",
		"when", "missing", "contradictory", "incomplete", "question", "example", "don't", "it's",
		"we'll", "HOTEL", "Rail", "FAQ", "JSON", "version", "date", "current", "archive", "unit",
	}
	enPunct = []string{",", ".", ":", ";", " -", "(", ")", "!", "?", "/"}
	escapes = []string{`\n`, `\"`, `\t`, `\\`, `\u2028`, `\u003c`}
)

// mixedDoc returns a deterministic document of about size bytes that reads
// like a stream of ka2 contracts: compact JSON whose strings mix Chinese and
// English, numbers, dates, addresses, escapes and the odd emoji.
func mixedDoc(seed uint64, size int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.Grow(size + 1024)
	text := func(words int) {
		zh := r.IntN(2) == 0
		for w := range words {
			if r.IntN(6) == 0 {
				zh = !zh
			}
			switch {
			case r.IntN(25) == 0:
				b.WriteString(escapes[r.IntN(len(escapes))])
			case r.IntN(20) == 0:
				b.WriteString(strconv.Itoa(r.IntN(100000)))
				b.WriteString([]string{"", "元", " CNY", "%", "日"}[r.IntN(5)])
			case r.IntN(60) == 0:
				b.WriteString([]string{"👍", "🏨", "🚄", "✈️", "🇨🇳"}[r.IntN(5)])
			case r.IntN(90) == 0:
				// A rare character now and then: text is not only common words.
				b.WriteRune(rune(0x4e00 + r.IntN(0x9fa5-0x4e00)))
			case zh:
				b.WriteString(zhPhrases[r.IntN(len(zhPhrases))])
				if r.IntN(5) == 0 {
					b.WriteString(zhPunct[r.IntN(len(zhPunct))])
				}
			default:
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(enPhrases[r.IntN(len(enPhrases))])
				if r.IntN(6) == 0 {
					b.WriteString(enPunct[r.IntN(len(enPunct))])
				}
			}
		}
	}
	for b.Len() < size {
		b.WriteString(`{"template":"ka2-context-v1","instruction":"`)
		text(20 + r.IntN(40))
		b.WriteString(`","example":{"question":"`)
		text(5 + r.IntN(15))
		b.WriteString(`","answer":"`)
		text(3 + r.IntN(10))
		b.WriteString(` [travel-v1:1-3]"},"evidence":[`)
		for k := range 1 + r.IntN(4) {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"source_id":"travel-v`)
			b.WriteString(strconv.Itoa(1 + r.IntN(40)))
			b.WriteString(`","version":"v2","line_start":1,"line_end":`)
			b.WriteString(strconv.Itoa(1 + r.IntN(40)))
			b.WriteString(`,"quote":"`)
			for l := range 1 + r.IntN(6) {
				if l > 0 {
					b.WriteString(`\n`)
				}
				text(8 + r.IntN(30))
			}
			b.WriteString(`"}`)
		}
		b.WriteString(`],"question":"`)
		text(5 + r.IntN(20))
		b.WriteString("\"}\n")
	}
	return b.String()
}
