export const REDACTED = '[redacted]';

/** Shorter values are not treated as secrets: replacing them would garble ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** Anything shaped like a credential in a server's text, known to us or not. */
const SECRET_SHAPES: ReadonlyArray<[RegExp, string]> = [
	[/\b(Bearer)\s+(?!\[redacted\])[^\s"',;:)\]}]+/gi, `$1 ${REDACTED}`],
	// A JWT: base64url header (always starting `eyJ`, i.e. `{"`), payload and signature.
	[/\beyJ[\w-]*\.[\w-]+\.[\w-]*/g, REDACTED],
	// A SHA-256 in hex, the shape of a provisioning signature.
	[/\b[0-9a-f]{64}\b/gi, REDACTED],
];

export type Redact = (text: string) => string;

/**
 * Replaces the given secrets (access, refresh and legacy tokens, salt, signature) and anything
 * shaped like a bearer token or a JWT by `[redacted]`. Applied to every text that reaches an
 * error: a server may echo what it was sent.
 */
export function redactorOf(secrets: Iterable<unknown>): Redact {
	const known = [...new Set([...secrets].filter((secret): secret is string => typeof secret === 'string'))]
		.filter((secret) => secret.length >= MIN_SECRET_LENGTH)
		.flatMap((secret) => [secret, encodeURIComponent(secret)])
		.sort((a, b) => b.length - a.length);
	return (text) => {
		let result = text;
		for (const [shape, replacement] of SECRET_SHAPES) result = result.replace(shape, replacement);
		for (const secret of known) result = result.split(secret).join(REDACTED);
		return result;
	};
}

/**
 * Every token the credential holds, whichever authentication mode is active: a refresh-token
 * credential may still keep a legacy token (and the reverse) that a server could echo. The
 * credential declares both fields for either mode so that n8n hands them over.
 */
export function storedSecretsOf(credentials: Record<string, unknown>): unknown[] {
	return [credentials.refreshToken, credentials.legacyToken, credentials.accessToken];
}

/** Only the shapes: for server text where no secret of ours is at hand (cursors, page errors). */
export const redactShapes: Redact = redactorOf([]);
