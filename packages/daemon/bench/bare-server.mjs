// The floor: node:http on a Unix socket answering fixed bytes, nothing else.
import { createServer } from 'node:http'

const [socketPath, answersJson] = process.argv.slice(2)
const answers = JSON.parse(answersJson)

createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    const body = answers[`${request.method} ${request.url}`]
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json; charset=utf-8' })
    response.end(body ?? '{}')
  })
}).listen(socketPath, () => process.send('listening'))
