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

	/** A version 4 uuid built from the seeded stream. */
	uuid(): string {
		const h = this.hex(16);
		const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
		return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
	}
}

/** A stable 32-bit hash of a string (FNV-1a), used to derive sub-seeds and in condition rules. */
export function hashString(value: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < value.length; i++) {
		h ^= value.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}
