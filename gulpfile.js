const path = require('path');
const { task, src, dest } = require('gulp');

// n8n reads node and credential icons from next to the compiled .js files.
task('build:icons', () =>
	src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { encoding: false }).pipe(
		dest((file) => path.join('dist', path.relative(__dirname, file.base))),
	),
);
