import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors';

/** What a cursor points at: the sort key and id of one record in one ordering of one resource. */
export interface CursorPayload {
	resource: string;
	field: string;
	direction: 'asc' | 'desc';
	key: string | null;
	id: string;
}

/**
 * Opaque cursors: base64url of `<json>.<hmac>`. Signing lets the server detect a cursor that a
 * client edited or built itself; position by key + id keeps paging stable while records change.
 */
export class CursorCodec {
	constructor(private readonly secret: string) {}

	encode(payload: CursorPayload): string {
		const json = JSON.stringify([payload.resource, payload.field, payload.direction, payload.key, payload.id]);
		return Buffer.from(`${json}.${this.sign(json)}`).toString('base64url');
	}

	/** Decodes and checks a cursor; `parameter` names the query parameter in the 400. */
	decode(cursor: string, parameter: string, expected: Omit<CursorPayload, 'key' | 'id'>): CursorPayload {
		const payload = this.verify(cursor);
		if (!payload) {
			throw badRequest('pagination', 'invalid_cursor', `${parameter}: cursor is malformed or has been tampered with`);
		}
		if (
			payload.resource !== expected.resource ||
			payload.field !== expected.field ||
			payload.direction !== expected.direction
		) {
			throw badRequest(
				'pagination',
				'invalid_cursor',
				`${parameter}: cursor belongs to another list or order (${payload.resource} by ${payload.field} ${payload.direction})`,
			);
		}
		return payload;
	}

	private verify(cursor: string): CursorPayload | null {
		if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
		const text = Buffer.from(cursor, 'base64url').toString('utf8');
		const dot = text.lastIndexOf('.');
		if (dot < 0) return null;
		const json = text.slice(0, dot);
		const given = Buffer.from(text.slice(dot + 1));
		const wanted = Buffer.from(this.sign(json));
		if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
		const parsed: unknown = JSON.parse(json);
		if (!Array.isArray(parsed) || parsed.length !== 5) return null;
		const [resource, field, direction, key, id] = parsed as unknown[];
		if (typeof resource !== 'string' || typeof field !== 'string' || typeof id !== 'string') return null;
		if (direction !== 'asc' && direction !== 'desc') return null;
		if (key !== null && typeof key !== 'string') return null;
		return { resource, field, direction, key, id };
	}

	private sign(json: string): string {
		return createHmac('sha256', this.secret).update(json).digest('base64url').slice(0, 22);
	}
}
