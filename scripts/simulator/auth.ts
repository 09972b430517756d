import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { SimClock } from './clock';
import { badRequest, unauthorized } from './errors';
import type { Rng } from './rng';
import { isJsonObject, type Json, type Role, type TokenKind } from './types';

/** Credentials of one role, as generated in the back office of the real service. */
export interface RoleCredentials {
	role: Role;
	jti: string;
	refreshToken: string;
	/** A long-lived JWT that works without the provisioning flow. */
	legacyToken: string;
}

export interface SimulatorCredentials {
	admin: RoleCredentials;
	limited: RoleCredentials;
}

/** Who is calling, after the bearer token has been checked. */
export interface Principal {
	role: Role;
	kind: Extract<TokenKind, 'access' | 'legacy'>;
	/** The token's own `jti` claim: unique per issued token, used for per-token stats. */
	tokenId: string;
}

interface Claims {
	sub: string;
	role: Role;
	iat: number;
	exp: number;
	jti: string;
	kind: 'access' | 'legacy';
}

const SALT_TTL_SECONDS = 60;
const LEGACY_TTL_SECONDS = 10 * 365 * 86400;

interface Salt {
	value: string;
	expiresAt: number;
}

/** Token provisioning and bearer checks. Time comes from the simulator clock. */
export class AuthService {
	readonly credentials: SimulatorCredentials;
	private readonly salts = new Map<string, Salt[]>();
	private readonly usedSalts = new Map<string, Set<string>>();
	private readonly issued = new Set<string>();
	private tokenCounter = 0;

	constructor(
		private readonly secret: string,
		private readonly clock: SimClock,
		private readonly rng: Rng,
		public tokenTtlSeconds: number,
	) {
		this.credentials = { admin: this.roleCredentials('admin'), limited: this.roleCredentials('limited') };
	}

	private roleCredentials(role: Role): RoleCredentials {
		const jti = this.rng.uuid();
		const refreshToken = `rt_${this.rng.hex(32)}`;
		const legacyToken = this.sign({ sub: jti, role, kind: 'legacy' }, LEGACY_TTL_SECONDS);
		return { role, jti, refreshToken, legacyToken };
	}

	private byJti(jti: string): RoleCredentials | undefined {
		return [this.credentials.admin, this.credentials.limited].find((c) => c.jti === jti);
	}

	/** Step 1: a fresh single-use salt for the JTI, valid for 60 s. */
	begin(body: Json | undefined): { salt: string } {
		const jti = requiredString(body, 'jti');
		if (!this.byJti(jti)) throw unauthorized('unknown_jti', `jti: ${jti} is not a provisioned refresh token`);
		const salt = this.rng.hex(16);
		const live = this.liveSalts(jti);
		live.push({ value: salt, expiresAt: this.clock.nowSeconds() + SALT_TTL_SECONDS });
		this.salts.set(jti, live);
		return { salt };
	}

	/** Step 2: checks sha256(`<salt>:<refresh_token>`) against the outstanding salts. */
	refresh(body: Json | undefined): { access_token: string } {
		const jti = requiredString(body, 'jti');
		const signature = requiredString(body, 'signature');
		const credentials = this.byJti(jti);
		if (!credentials) throw unauthorized('unknown_jti', `jti: ${jti} is not a provisioned refresh token`);
		const live = this.liveSalts(jti);
		const match = live.find((s) => signatureOf(s.value, credentials.refreshToken) === signature);
		if (match) {
			this.salts.set(jti, live.filter((s) => s !== match));
			this.rememberUsed(jti, match.value);
			return { access_token: this.issue(credentials) };
		}
		const reused = [...(this.usedSalts.get(jti) ?? [])].some((s) => signatureOf(s, credentials.refreshToken) === signature);
		if (reused || live.length === 0) {
			throw unauthorized('invalid_salt', 'salt: no unused salt matches; it was used already, expired after 60 s, or begin was not called');
		}
		throw unauthorized('invalid_signature', 'signature: does not match sha256("<salt>:<refresh_token>") in lower-case hex');
	}

	/** Issues an access token directly (control API), as if the flow had been followed. */
	issueFor(role: Role): string {
		return this.issue(this.credentials[role]);
	}

	private issue(credentials: RoleCredentials): string {
		const token = this.sign({ sub: credentials.jti, role: credentials.role, kind: 'access' }, this.tokenTtlSeconds);
		return token;
	}

	/** All access tokens issued so far stop working; legacy tokens keep working. */
	revokeAll(): void {
		this.issued.clear();
	}

	/** The id of the token in an Authorization header, if it is one of ours, valid or not (for the request log). */
	tokenIdOf(header: string | undefined): string | undefined {
		const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
		return match ? this.decode(match[1])?.jti : undefined;
	}

	/** Checks an Authorization header; throws a 401 with reason invalid_token or token_expired. */
	verify(header: string | undefined): Principal {
		const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
		if (!match) throw unauthorized('invalid_token', 'Authorization: expected "Bearer <access token>"');
		const claims = this.decode(match[1]);
		if (!claims) throw unauthorized('invalid_token', 'Authorization: the token is malformed or its signature is invalid');
		if (claims.kind === 'access' && !this.issued.has(claims.jti)) {
			throw unauthorized('invalid_token', 'Authorization: the token has been revoked');
		}
		if (claims.exp <= this.clock.nowSeconds()) {
			throw unauthorized('token_expired', `Authorization: the token expired at ${new Date(claims.exp * 1000).toISOString()}`);
		}
		return { role: claims.role, kind: claims.kind, tokenId: claims.jti };
	}

	private liveSalts(jti: string): Salt[] {
		const now = this.clock.nowSeconds();
		const all = this.salts.get(jti) ?? [];
		for (const s of all) if (s.expiresAt <= now) this.rememberUsed(jti, s.value);
		return all.filter((s) => s.expiresAt > now);
	}

	private rememberUsed(jti: string, salt: string): void {
		const used = this.usedSalts.get(jti) ?? new Set<string>();
		used.add(salt);
		if (used.size > 1000) used.delete(used.values().next().value ?? '');
		this.usedSalts.set(jti, used);
	}

	private sign(claims: Pick<Claims, 'sub' | 'role' | 'kind'>, ttlSeconds: number): string {
		const iat = this.clock.nowSeconds();
		const jti = `tok_${++this.tokenCounter}_${this.rng.hex(6)}`;
		if (claims.kind === 'access') this.issued.add(jti);
		const full: Claims = { ...claims, iat, exp: iat + ttlSeconds, jti };
		const head = base64url({ alg: 'HS256', typ: 'JWT' });
		const body = base64url(full);
		return `${head}.${body}.${this.hmac(`${head}.${body}`)}`;
	}

	private decode(token: string): Claims | null {
		const parts = token.split('.');
		if (parts.length !== 3) return null;
		const wanted = Buffer.from(this.hmac(`${parts[0]}.${parts[1]}`));
		const given = Buffer.from(parts[2]);
		if (wanted.length !== given.length || !timingSafeEqual(wanted, given)) return null;
		try {
			const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
			return isClaims(claims) ? claims : null;
		} catch {
			return null;
		}
	}

	private hmac(data: string): string {
		return createHmac('sha256', this.secret).update(data).digest('base64url');
	}
}

export function signatureOf(salt: string, refreshToken: string): string {
	return createHash('sha256').update(`${salt}:${refreshToken}`).digest('hex');
}

function base64url(value: object): string {
	return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function isClaims(value: unknown): value is Claims {
	if (!isJsonObject(value as Json)) return false;
	const c = value as Record<string, unknown>;
	return (
		typeof c.sub === 'string' &&
		(c.role === 'admin' || c.role === 'limited') &&
		typeof c.exp === 'number' &&
		typeof c.jti === 'string' &&
		(c.kind === 'access' || c.kind === 'legacy')
	);
}

function requiredString(body: Json | undefined, field: string): string {
	const value = isJsonObject(body) ? body[field] : undefined;
	if (typeof value !== 'string' || value === '') {
		throw badRequest('body', 'missing_field', `${field}: is required and must be a non-empty string`);
	}
	return value;
}
