/** Word pools for realistic seeded data (with non-ASCII names, to exercise ilike and encoding). */
export const FIRST_NAMES = [
	'Anna', 'Åsa', 'Björn', 'Chen', 'Diego', 'Elin', 'Fatima', 'Gustav', 'Hanna', 'Ida', 'Jonas',
	'Karin', 'Lars', 'Maja', 'Nils', 'Olof', 'Priya', 'Rasmus', 'Sara', 'Tove', 'Ulf', 'Viktor', 'Wei',
	'Yusuf', 'Zoë', 'Émile', 'Łukasz', 'Søren', 'Ingrid', 'Mohammed', 'Leila', 'Per',
] as const;

export const LAST_NAMES = [
	'Andersson', 'Berg', 'Carlsson', 'Dahl', 'Ek', 'Forsberg', 'Gran', 'Holm', 'Isaksson', 'Jansson',
	'Karlsson', 'Lindqvist', 'Madsen', 'Nyström', 'Öberg', 'Persson', 'Quist', 'Rahman', 'Sjöberg',
	'Takahashi', 'Ulriksen', 'Virtanen', 'Wójcik', 'Yilmaz', 'Zhang', "O'Neill", 'García', 'Müller',
] as const;

export const EMAIL_DOMAINS = ['north.example', 'south.example', 'east.example', 'west.example'] as const;

export const TITLES = [
	'Nurse', 'Software Engineer', 'Warehouse Operator', 'Team Lead', 'Accountant', 'HR Partner',
	'Sales Manager', 'Driver', 'Chef', 'Electrician', 'Designer', 'Support Agent',
] as const;

export const EMPLOYMENT_TYPES = ['permanent', 'temporary', 'consultant', 'intern'] as const;
export const SHIRT_SIZES = ['XS', 'S', 'M', 'L', 'XL'] as const;
export const MAPPING_STATUSES = ['active', 'pending', 'error', 'inactive'] as const;
export const TIME_TYPES = ['vacation', 'sick', 'vab', 'overtime', 'parental_leave', 'work'] as const;
export const REQUEST_STATUSES = ['approved', 'pending', 'rejected'] as const;
export const COMPETENCE_NAMES = [
	'Forklift license', 'First aid', 'Java', 'Project management', 'Welding', 'Swedish', 'German',
	'Fire safety', 'Scrum master', 'Accounting', 'Hygiene certificate', 'Driving license B',
] as const;
export const COMPETENCE_TYPES = ['certificate', 'skill', 'language', 'license'] as const;
export const LEVELS = ['beginner', 'intermediate', 'expert'] as const;
export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export const JOB_TYPES = ['sync', 'replication', 'file_delivery'] as const;
export const UNIT_WORDS = [
	'Logistics', 'Finance', 'Care', 'Engineering', 'Sales', 'Kitchen', 'Support', 'People', 'Fleet',
	'Research', 'Quality', 'Facilities',
] as const;
export const CHILD_NAMES = ['Alva', 'Elsa', 'Liam', 'Noah', 'Saga', 'Vera'] as const;

/** Strips diacritics so that names make plausible email addresses. */
export function asciiSlug(text: string): string {
	return text
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/ł/g, 'l')
		.replace(/ø/g, 'o')
		.replace(/[^A-Za-z]/g, '')
		.toLowerCase();
}
