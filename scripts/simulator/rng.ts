/** Seeded pseudo random numbers so that seeded data is identical between runs. */
export class Rng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0 || 0x9e3779b9;
	}

	/** mulberry32: small, fast and good enough for test data. */
	nextUint32(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return (t ^ (t >>> 14)) >>> 0;
	}

	/** A float in [0, 1). */
	next(): number {
		return this.nextUint32() / 4294967296;
	}

	/** An integer in [min, max] (both inclusive). */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	hex(bytes: number): string {
		let out = '';
		for (let i = 0; i < bytes; i += 4) {
			out += this.nextUint32().toString(16).padStart(8, '0');
		}
		return out.slice(0, bytes * 2);
	}

	/**
	 * A version 4 uuid built from the seeded stream. Written into a byte buffer and decoded once,
	 * so the result is one flat string (seeding makes hundreds of thousands of them).
	 */
	uuid(): string {
		let word = 0;
		for (let i = 0; i < 32; i++) {
			if (i % 8 === 0) word = this.nextUint32();
			let nibble = (word >>> ((7 - (i % 8)) * 4)) & 0xf;
			if (i === 12) nibble = 4;
			if (i === 16) nibble = (nibble & 0x3) | 0x8;
			UUID_BYTES[UUID_POSITIONS[i]] = HEX_CODES[nibble];
		}
		return UUID_BYTES.toString('latin1');
	}
}

const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** Index in the 36-character uuid text of each of its 32 hex digits. */
const UUID_POSITIONS = Array.from({ length: 32 }, (_, i) => i + (i >= 8 ? 1 : 0) + (i >= 12 ? 1 : 0) + (i >= 16 ? 1 : 0) + (i >= 20 ? 1 : 0));
const UUID_BYTES = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** A stable 32-bit hash of a string (FNV-1a), used to derive sub-seeds and in condition rules. */
export function hashString(value: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < value.length; i++) {
		h ^= value.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}
