import { createHash, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { InputError } from '../../../shared/errors';
import { credentialsOfRun } from '../../../shared/transport/runCredentials';

/**
 * What a person approved is what an apply writes: every preview item carries a seal, and an apply
 * writes an item only if its seal matches what the item holds.
 *
 * The seal is one keyed hash (HMAC-SHA256) per part of the preview (`operation`, `outcome`,
 * `employeeId`, `match`, `write`, `read`, `changes`, `chain`, ...) and one over the list of parts,
 * each bound to the item's random `nonce`. The key is derived from the credential's secret (the
 * refresh token and its JTI, or the legacy token) and its base URL: no expression, Code node or
 * other node of the workflow can read it, so an item edited consistently (a body and its
 * `changes` together), a part taken from another item, or an item built from scratch does not
 * pass. Per part, so that a refusal names what was edited. The seal reveals nothing of the key or
 * of the values (a keyed hash of each part).
 *
 * A preview applied with another credential (or after its token was rotated) is refused the same
 * way: preview again with the credential that applies.
 */

/** The field of a preview item that holds its seal; every other field of `preview` is sealed. */
export const SEAL_FIELD = 'seal';
const NONCE_FIELD = 'nonce';
/** The hash over the names of the sealed parts (a part removed or added is an edit too). */
const PARTS_KEY = '(parts)';
/** 128 bits of each HMAC: as unforgeable as the whole, half the text in every item. */
const SEAL_HEX = 32;

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON with object keys sorted, as the item holds it after n8n stored it (undefined values dropped). */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map((entry) => (entry === undefined ? 'null' : canonical(entry))).join(',')}]`;
	if (isObject(value)) {
		return `{${Object.keys(value)
			.filter((key) => value[key] !== undefined)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
			.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

async function sealKey(context: IExecuteFunctions): Promise<Buffer> {
	const credentials = await credentialsOfRun(context);
	const secret = credentials.authMode === 'legacyToken' ? String(credentials.legacyToken ?? '') : `${String(credentials.jti ?? '')}:${String(credentials.refreshToken ?? '')}`;
	return createHash('sha256').update(`n8n-nodes-personnel-data preview seal v1\0${String(credentials.baseUrl ?? '')}\0${secret}`).digest();
}

const hmac = (key: Buffer, nonce: string, name: string, content: string): string =>
	createHmac('sha256', key).update(`${nonce}\0${name}\0${content}`).digest('hex').slice(0, SEAL_HEX);

function partsOf(preview: IDataObject): string[] {
	return Object.keys(preview)
		.filter((name) => name !== SEAL_FIELD && name !== NONCE_FIELD && preview[name] !== undefined)
		.sort();
}

function sealsOf(key: Buffer, nonce: string, preview: IDataObject): Record<string, string> {
	const parts = partsOf(preview);
	const seals: Record<string, string> = { [PARTS_KEY]: hmac(key, nonce, PARTS_KEY, JSON.stringify(parts)) };
	for (const name of parts) seals[name] = hmac(key, nonce, name, canonical(preview[name]));
	return seals;
}

/** A new item's nonce: random, so that no two items (of any preview) share one. */
export const newNonce = (): string => randomBytes(16).toString('hex');

/** The preview's fields with their nonce and seal. */
export async function sealPreview(context: IExecuteFunctions, preview: IDataObject, nonce: string = newNonce()): Promise<IDataObject> {
	const fields: IDataObject = { ...preview, [NONCE_FIELD]: nonce };
	return { ...fields, [SEAL_FIELD]: sealsOf(await sealKey(context), nonce, fields) };
}

const sameHex = (a: unknown, b: string): boolean => typeof a === 'string' && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Throws, naming the edited parts, unless `preview` holds exactly what a preview with this
 * credential sealed. Nothing is read or written before this check.
 */
export async function checkSeal(context: IExecuteFunctions, preview: IDataObject): Promise<void> {
	const nonce = preview[NONCE_FIELD];
	const seal = preview[SEAL_FIELD];
	if (typeof nonce !== 'string' || nonce === '' || !isObject(seal)) {
		throw new InputError(
			`Input item › preview.${typeof nonce !== 'string' || nonce === '' ? NONCE_FIELD : SEAL_FIELD}: missing; expected an item exactly as a preview gave it (nothing of it was written)`,
		);
	}
	const expected = sealsOf(await sealKey(context), nonce, preview);
	const edited = Object.keys(expected).filter((name) => name !== PARTS_KEY && !sameHex(seal[name], expected[name]));
	const partsChanged = !sameHex(seal[PARTS_KEY], expected[PARTS_KEY]);
	if (edited.length === 0 && !partsChanged) return;
	const named = edited.length > 0 ? edited.map((name) => `preview.${name}`).join(', ') : 'preview (a part was removed)';
	throw new InputError(
		`Input item › ${named}: edited since the preview, or sealed with another credential; nothing of this item was written. Expected the item exactly as the preview gave it: preview again and approve that`,
	);
}
