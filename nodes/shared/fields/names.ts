import { InputError } from '../errors';

/**
 * What any field name must look like, known to the registry or not: it travels in the bracket
 * notation (`filters[<name>][op]`, `order[field]`, `select[]`) and as a JSON key, so brackets,
 * spaces, `&` or `=` would change what the server reads.
 */
const FIELD_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

/** The trimmed field name, or an InputError naming where it was given and what was expected. */
export function checkFieldName(raw: unknown, where: string): string {
	const name = typeof raw === 'string' ? raw.trim() : '';
	if (name === '') throw new InputError(`${where}: a field name is required; expected a field such as updated_at`);
	if (!FIELD_NAME.test(name)) {
		throw new InputError(`${where}: "${name}" is not a field name; expected letters, digits, _ . or - (such as employment_start_date)`);
	}
	return name;
}

/** A multi-select given by an expression may be a list or comma-separated text. */
export function fieldNameList(raw: unknown): unknown[] {
	if (Array.isArray(raw)) return raw;
	if (typeof raw === 'string') return raw.split(',').filter((part) => part.trim() !== '');
	return raw === undefined || raw === null ? [] : [raw];
}
