// Which names hold a secret: the request inspector hides their values (features/inspector/redact.ts),
// and the kernel does not remember a body that has such a field (http/remembered.ts).

/**
 * A field, parameter or header name that holds a secret, in any case: password, passwd, senha, pwd,
 * newPassword, apiToken, signingSecret, apiKey, … and their usual misspellings (pasword, paswd, pssword,
 * psw, senah): a student's typo still carries the password, and hiding a value too many is harmless.
 */
const SECRET_NAME = /pass|pas+w|ps+w|pword|senha|senah|pwd|secret|token|api[-_]?key|authorization|credential|cookie|^key$/i
/**
 * `pw` as a word of the name: pw, PW, newPw, pw_hash, x-pw, pw2. Not as letters inside a word, so
 * upward, stopwatch, shipWeight and pwned keep their value; an all-capitals word starting with PW
 * (PWA, PWM) is hidden.
 */
const PW_WORD = /(?:^|[^A-Za-z])[Pp][Ww](?![a-z])|(?<=[a-z])P[Ww](?![a-z])/

/** Whether a field, parameter or header of this name holds a secret. */
export const isSecretName = (name: string) => SECRET_NAME.test(name) || PW_WORD.test(name)
