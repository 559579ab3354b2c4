/**
 * A real SMTP server as its own process, for the mail suites (SPEC 16): smtp-server with STARTTLS
 * (the certificate and key in SMTP_CERT and SMTP_KEY) and AUTH (SMTP_USER, SMTP_PASSWORD), refused
 * before TLS. It prints `{"listening":PORT}` once, then one JSON line per message it accepted, parsed
 * by mailparser: `{"to","from","subject","text","html","user","secure"}`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { SMTPServer } = require('smtp-server');
const { simpleParser } = require('mailparser');

const env = process.env;
const server = new SMTPServer({
  secure: false,
  key: readFileSync(env.SMTP_KEY),
  cert: readFileSync(env.SMTP_CERT),
  authMethods: ['PLAIN', 'LOGIN'],
  allowInsecureAuth: false,
  size: 1024 * 1024,
  logger: false,
  onAuth(auth, session, callback) {
    if (!session.secure) return callback(new Error('STARTTLS first'));
    if (auth.username !== env.SMTP_USER || auth.password !== env.SMTP_PASSWORD) return callback(new Error('Invalid username or password'));
    callback(null, { user: auth.username });
  },
  onMailFrom(_address, session, callback) {
    callback(session.user ? null : new Error('authentication required'));
  },
  onData(stream, session, callback) {
    simpleParser(stream).then(
      (mail) => {
        const line = { to: mail.to?.text ?? '', from: mail.from?.text ?? '', subject: mail.subject ?? '', text: mail.text ?? '', html: mail.html || '', user: session.user, secure: session.secure };
        process.stdout.write(JSON.stringify(line) + '\n');
        callback();
      },
      (error) => callback(error),
    );
  },
});
server.on('error', (error) => process.stderr.write(`smtp error: ${error.message}\n`));
server.listen(Number(env.SMTP_PORT ?? 0), '127.0.0.1', () => process.stdout.write(JSON.stringify({ listening: server.server.address().port }) + '\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
