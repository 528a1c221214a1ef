/** The line of docs/install.md's sh blocks that runs `npm run pack:local`. */
export declare function documentedRoute(markdown: string): string;
