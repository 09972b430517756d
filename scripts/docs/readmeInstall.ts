/**
 * The README's install instructions, read as data so that tests run and check exactly what users
 * are told: the shell block (download the release tarball, `npm install` it in ~/.n8n/nodes) and
 * the Dockerfile block (steps of an image built on n8nio/n8n).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DockerStep {
	instruction: string;
	args: string;
}

export interface ReadmeInstall {
	/** The shell block that downloads the release tarball and installs it. */
	shell: string;
	/** The value the shell block gives `version=`. */
	shellVersion: string;
	/** The URL the shell block downloads from, with `$version` as written. */
	downloadUrl: string;
	/** The arguments after `npm install <tarball>` in the shell block. */
	shellNpmFlags: string[];
	dockerfile: string;
	dockerSteps: DockerStep[];
}

function fences(markdown: string, language: string): string[] {
	return [...markdown.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((match) => match[1]);
}

function only<T>(items: T[], what: string): T {
	if (items.length !== 1) throw new Error(`README.md: expected exactly one ${what}, found ${items.length}`);
	return items[0];
}

/** Dockerfile instructions, continuation lines joined, comments dropped. */
export function dockerStepsOf(dockerfile: string): DockerStep[] {
	const joined = dockerfile.replace(/\\\n/g, ' ');
	return joined
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => line !== '' && !line.startsWith('#'))
		.map((line) => {
			const [instruction, ...rest] = line.split(/\s+/);
			return { instruction: instruction.toUpperCase(), args: rest.join(' ') };
		});
}

export function readmeInstall(root: string): ReadmeInstall {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	const shell = only(fences(readme, 'bash').filter((block) => /releases\/download/.test(block)), 'bash block downloading a release');
	const shellVersion = only([...shell.matchAll(/^version=(\S+)/gm)].map((m) => m[1]), '"version=" line in the shell block');
	const downloadUrl = only([...shell.matchAll(/curl\s+\S+\s+"([^"]+)"/g)].map((m) => m[1]), 'curl line in the shell block');
	const npmLine = only([...shell.matchAll(/^npm install "\.\/[^"]+\.tgz"(.*)$/gm)].map((m) => m[1]), 'npm install line in the shell block');
	const dockerfile = only(fences(readme, 'dockerfile'), 'dockerfile block');
	return {
		shell,
		shellVersion,
		downloadUrl,
		shellNpmFlags: npmLine.replace(/#.*$/, '').trim().split(/\s+/).filter(Boolean),
		dockerfile,
		dockerSteps: dockerStepsOf(dockerfile),
	};
}
