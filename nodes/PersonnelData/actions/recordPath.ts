import { InputError } from '../../shared/errors';
import { uuidSchema } from '../../shared/validation';

export function requireUuid(value: string, what: string, field = what): string {
	if (!value) throw new InputError(`${field}: an ID is required; expected a UUID`);
	if (!uuidSchema.safeParse(value).success) {
		throw new InputError(`${field}: "${value}" is not a valid ${what} ID; expected a UUID such as 3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d`);
	}
	return value;
}

export const recordPath = (template: string, id: string): string => template.replace('{id}', encodeURIComponent(id));
