/**
 * The matrix suites' profiles: a seeded sample of the server variations that can affect a suite,
 * printed so that a failure can be replayed (`SERVER_MATRIX_SEED=<seed>`, or one profile with
 * `SERVER_MATRIX_PROFILE=<name=value,...>`; `SERVER_MATRIX_SIZE=<n>` samples more).
 */
import type { ServerVariation, SwitchName } from '../../scripts/simulator/variations';
import { describeVariation, matrixProfiles, matrixSeed } from '../../scripts/simulator/variations';

export interface Profile {
	name: string;
	variation: ServerVariation;
}

export function profilesFor(suite: string, relevant: readonly SwitchName[], count: number): Profile[] {
	const seed = matrixSeed();
	const profiles = matrixProfiles(seed, count, relevant).map((variation) => ({ name: describeVariation(variation), variation }));
	// Printed once per suite: the seed replays the sample, each profile's name replays it alone.
	process.stdout.write(`[server matrix] ${suite}: SERVER_MATRIX_SEED=${seed}, ${profiles.length} profiles\n`);
	return profiles;
}

/** Ids compared whatever letter case the server writes them in. */
export const sameIds = (ids: readonly unknown[]): string[] => ids.map((id) => String(id).toLowerCase()).sort();
