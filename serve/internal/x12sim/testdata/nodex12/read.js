// Reads a JSON array of X12 interchanges on stdin and prints, for each, what
// node-x12's strict parser makes of it: the envelope headers and every
// segment of every transaction set as [tag, element values...], or the
// error it raised.
'use strict'
const { X12Parser } = require('node-x12')

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => { input += chunk })
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((edi) => {
    try {
      const ic = new X12Parser(true).parse(edi)
      const values = (seg) => [seg.tag, ...seg.elements.map((e) => e.value)]
      return {
        isa: values(ic.header),
        groups: ic.functionalGroups.map((g) => ({
          gs: values(g.header),
          sets: g.transactions.map((t) => ({ st: values(t.header), segments: t.segments.map(values), se: values(t.trailer) })),
          ge: values(g.trailer)
        })),
        iea: values(ic.trailer)
      }
    } catch (err) {
      return { error: String(err && err.message ? err.message : err) }
    }
  })
  process.stdout.write(JSON.stringify(out))
})
