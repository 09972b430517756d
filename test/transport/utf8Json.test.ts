import { isDeepStrictEqual } from 'node:util';

import fc from 'fast-check';

import { parseUtf8Json } from '../../nodes/shared/transport/utf8Json';
import { expectNoSecrets } from '../helpers/secrets';
import { employee, HostileServer, hostileSecrets, page, runtimeFor } from './hostileServer';
import { jsonOf } from './support';

/** The reference: what the transport did before, and what a reader of the spec expects. */
function reference(body: Buffer): { value?: unknown; threw?: true } {
	try {
		return { value: JSON.parse(body.toString('utf8')) as unknown };
	} catch {
		return { threw: true };
	}
}

function candidate(body: Buffer): { value?: unknown; threw?: true } {
	try {
		return { value: parseUtf8Json(body) };
	} catch {
		return { threw: true };
	}
}

/** Same outcome: both throw, or equal values with the same key order and prototypes. */
function expectSame(body: Buffer): void {
	const expected = reference(body);
	const actual = candidate(body);
	expect(actual.threw).toBe(expected.threw);
	if (expected.threw) return;
	expect(JSON.stringify(actual.value)).toBe(JSON.stringify(expected.value));
	expect(isDeepStrictEqual(actual.value, expected.value)).toBe(true);
}

/**
 * A JSON string's content as raw bytes: any byte JSON allows unescaped (so 0x80–0xFF, valid UTF-8
 * or not), the short escapes, and now and then a `\u` escape (which sends the body the plain way).
 */
const stringPiece = fc.oneof(
	{ weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).filter((byte) => byte !== 0x22 && byte !== 0x5c).map((byte) => Buffer.from([byte])) },
	{ weight: 6, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((byte) => Buffer.from([byte])) },
	{ weight: 6, arbitrary: fc.constantFrom('Ł', 'é', 'ÿ', '東京', '😀', '\u0080', '\u2028', 'Ä').map((text) => Buffer.from(text, 'utf8')) },
	{ weight: 3, arbitrary: fc.constantFrom('\\"', '\\\\', '\\/', '\\n', '\\t', '\\b', '\\f', '\\r').map((text) => Buffer.from(text, 'latin1')) },
	{ weight: 1, arbitrary: fc.constantFrom('\\u0141', '\\u00e9', '\\u0041', '\\ud83d\\ude00').map((text) => Buffer.from(text, 'latin1')) },
);
const rawString = fc.array(stringPiece, { maxLength: 8 }).map((pieces) => Buffer.concat([Buffer.from('"'), ...pieces, Buffer.from('"')]));
/** Keys include the troublesome ones: "__proto__", and short raw bytes that decode alike (duplicates after decoding). */
const rawKey = fc.oneof(
	rawString,
	fc.constantFrom('"__proto__"', '"id"', '"0"', '"7"', '"\xc5"', '"\xc6"', '"\xc5\x81"').map((text) => Buffer.from(text, 'latin1')),
);

const { rawValue } = fc.letrec<{ rawValue: Buffer }>((tie) => ({
	rawValue: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		rawString,
		fc.constantFrom('null', 'true', 'false', '0', '-0', '12.5e3', '-7').map((text) => Buffer.from(text)),
		fc.array(tie('rawValue'), { maxLength: 4 }).map((items) => Buffer.concat([Buffer.from('['), ...join(items), Buffer.from(']')])),
		fc
			.array(fc.tuple(rawKey, tie('rawValue')), { maxLength: 5 })
			.map((entries) => Buffer.concat([Buffer.from('{'), ...join(entries.map(([key, value]) => Buffer.concat([key, Buffer.from(':'), value]))), Buffer.from('}')])),
	),
}));

function join(parts: Buffer[]): Buffer[] {
	return parts.flatMap((part, index) => (index === 0 ? [part] : [Buffer.from(','), part]));
}

describe('parseUtf8Json: the same as JSON.parse of the UTF-8 text', () => {
	it('on generated bodies: raw bytes in strings and keys (invalid UTF-8 included), escapes, "__proto__", keys that decode alike', () => {
		fc.assert(fc.property(rawValue, (body) => expectSame(body)), { numRuns: 3000 });
	});

	it('on generated values as a server serialises them (JSON.stringify of any Unicode)', () => {
		fc.assert(fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => expectSame(Buffer.from(JSON.stringify(value), 'utf8'))), { numRuns: 1000 });
	});

	it('on broken bodies: the same bodies are refused (stray bytes outside strings, a BOM, cut in the middle of a character)', () => {
		const page = Buffer.from(JSON.stringify({ data: [{ first_name: 'Łukasz', last_name: 'Żółć' }] }), 'utf8');
		fc.assert(
			fc.property(fc.nat({ max: page.length }), fc.uint8Array({ minLength: 1, maxLength: 3 }), (at, bytes) => {
				expectSame(Buffer.concat([page.subarray(0, at), Buffer.from(bytes), page.subarray(at)]));
				expectSame(page.subarray(0, at));
			}),
			{ numRuns: 2000 },
		);
		expect(candidate(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), page])).threw).toBe(true);
	});

	it('on nesting deeper than a recursive walk can go (JSON.parse takes it): the same value', () => {
		const depth = 100_000;
		const body = Buffer.from(`{"data":[{"first_name":"Łukasz","deep":${'['.repeat(depth)}"Zoë"${']'.repeat(depth)}}]}`, 'utf8');
		const record = (parseUtf8Json(body) as { data: Array<{ first_name: string; deep: unknown }> }).data[0];
		expect(record.first_name).toBe('Łukasz');
		// Walked without recursion: JSON.stringify and deep equality overflow at this depth themselves.
		let inner = record.deep;
		let levels = 0;
		while (Array.isArray(inner) && inner.length === 1) [inner, levels] = [inner[0], levels + 1];
		expect([levels, inner]).toEqual([depth, 'Zoë']);
	});

	it('decodes what it must, by example: names beyond Latin-1, a key with a diacritic, invalid bytes as U+FFFD, an own "__proto__"', () => {
		const body = Buffer.concat([
			Buffer.from('{"first_name":"Łukasz","Straße":"Zoë 東京","bad":"a', 'utf8'),
			Buffer.from([0xc5, 0x22, 0x2c]),
			Buffer.from('"__proto__":{"x":"ÿ"}}', 'utf8'),
		]);
		const value = parseUtf8Json(body) as Record<string, unknown>;
		expect(Object.keys(value)).toEqual(['first_name', 'Straße', 'bad', '__proto__']);
		expect(value.first_name).toBe('Łukasz');
		expect(value['Straße']).toBe('Zoë 東京');
		expect(value.bad).toBe('a\ufffd');
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ x: 'ÿ' });
	});
});

describe('names beyond ASCII, through the node over HTTP', () => {
	let server: HostileServer;

	beforeEach(async () => {
		server = await new HostileServer().start();
	});
	afterEach(async () => {
		await server.close();
	});

	const names = ['Łukasz', 'Zoë', 'Søren', '東京', '😀 Émile', 'plain'];
	/** A page whose names are raw UTF-8 (or escaped as `\u`), and one last name with a stray byte. */
	function body(escaped: boolean): Buffer {
		const records = names.map((firstName, index) => ({ ...employee(index + 1), first_name: firstName, 'größe': index }));
		const text = JSON.stringify(page(records, null, false));
		const utf8 = escaped ? text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
		const bytes = Buffer.from(utf8, 'utf8');
		const stray = bytes.indexOf('"plain"');
		return Buffer.concat([bytes.subarray(0, stray + 6), Buffer.from([0xc5]), bytes.subarray(stray + 6)]);
	}

	it.each([
		['raw UTF-8', false],
		['escaped as \\u', true],
	])('Get Many with Simplify off gives each name as sent (%s), a stray byte as U+FFFD', async (_label, escaped) => {
		const sent = body(escaped);
		server.api = (_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': sent.length });
			response.end(sent);
		};
		const runtime = runtimeFor(server);
		const result = await runtime.execute({
			nodeType: 'personnelData',
			parameters: { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false, options: { orderBy: 'id', orderDirection: 'asc' } },
		});
		expect(result.error).toBeUndefined();
		const items = jsonOf(result.items);
		expect(items.map((item) => item.first_name)).toEqual([...names.slice(0, -1), 'plain\ufffd']);
		expect(items.map((item) => item['größe'])).toEqual([0, 1, 2, 3, 4, 5]);
		expectNoSecrets([result.items, runtime.logs], hostileSecrets(server));
	});
});
