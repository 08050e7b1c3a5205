export namespace approval {
	
	export class Next {
	    output?: string;
	    to: string;
	
	    static createFrom(source: any = {}) {
	        return new Next(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.output = source["output"];
	        this.to = source["to"];
	    }
	}
	export class Provenance {
	    source: string;
	    via?: string;
	    model?: string;
	    // Go type: time
	    time: any;
	    flow?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Provenance(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.source = source["source"];
	        this.via = source["via"];
	        this.model = source["model"];
	        this.time = this.convertValues(source["time"], null);
	        this.flow = source["flow"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Step {
	    node_id: string;
	    key: string;
	    name: string;
	    type: string;
	    tool?: string;
	    kind: string;
	    reason: string;
	    arguments?: Record<string, any>;
	    prompt?: string;
	    tools?: string[];
	    next?: Next[];
	    content: string;
	    previous?: string;
	    fingerprint: string;
	    provenance: Provenance;
	    origin: string;
	
	    static createFrom(source: any = {}) {
	        return new Step(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.node_id = source["node_id"];
	        this.key = source["key"];
	        this.name = source["name"];
	        this.type = source["type"];
	        this.tool = source["tool"];
	        this.kind = source["kind"];
	        this.reason = source["reason"];
	        this.arguments = source["arguments"];
	        this.prompt = source["prompt"];
	        this.tools = source["tools"];
	        this.next = this.convertValues(source["next"], Next);
	        this.content = source["content"];
	        this.previous = source["previous"];
	        this.fingerprint = source["fingerprint"];
	        this.provenance = this.convertValues(source["provenance"], Provenance);
	        this.origin = source["origin"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace assistant {
	
	export class EdgeChange {
	    from: string;
	    to: string;
	    from_label: string;
	    to_label: string;
	    output?: workflow.EdgeOutput;
	
	    static createFrom(source: any = {}) {
	        return new EdgeChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.from = source["from"];
	        this.to = source["to"];
	        this.from_label = source["from_label"];
	        this.to_label = source["to_label"];
	        this.output = this.convertValues(source["output"], workflow.EdgeOutput);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Value {
	    text: string;
	    json?: boolean;
	    escaped?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Value(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.json = source["json"];
	        this.escaped = source["escaped"];
	    }
	}
	export class FieldChange {
	    field: string;
	    old?: Value;
	    new?: Value;
	
	    static createFrom(source: any = {}) {
	        return new FieldChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.field = source["field"];
	        this.old = this.convertValues(source["old"], Value);
	        this.new = this.convertValues(source["new"], Value);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NodeChange {
	    id: string;
	    key: string;
	    name: string;
	    type: string;
	    fields: FieldChange[];
	
	    static createFrom(source: any = {}) {
	        return new NodeChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.key = source["key"];
	        this.name = source["name"];
	        this.type = source["type"];
	        this.fields = this.convertValues(source["fields"], FieldChange);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChangeSet {
	    added_nodes: NodeChange[];
	    removed_nodes: NodeChange[];
	    updated_nodes: NodeChange[];
	    added_edges: EdgeChange[];
	    removed_edges: EdgeChange[];
	
	    static createFrom(source: any = {}) {
	        return new ChangeSet(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added_nodes = this.convertValues(source["added_nodes"], NodeChange);
	        this.removed_nodes = this.convertValues(source["removed_nodes"], NodeChange);
	        this.updated_nodes = this.convertValues(source["updated_nodes"], NodeChange);
	        this.added_edges = this.convertValues(source["added_edges"], EdgeChange);
	        this.removed_edges = this.convertValues(source["removed_edges"], EdgeChange);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class WorkflowPatch {
	    added_nodes: workflow.Node[];
	    removed_node_ids: string[];
	    updated_nodes: workflow.Node[];
	    added_edges: workflow.Edge[];
	    removed_edges: workflow.Edge[];
	    warnings: planner.Warning[];
	
	    static createFrom(source: any = {}) {
	        return new WorkflowPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added_nodes = this.convertValues(source["added_nodes"], workflow.Node);
	        this.removed_node_ids = source["removed_node_ids"];
	        this.updated_nodes = this.convertValues(source["updated_nodes"], workflow.Node);
	        this.added_edges = this.convertValues(source["added_edges"], workflow.Edge);
	        this.removed_edges = this.convertValues(source["removed_edges"], workflow.Edge);
	        this.warnings = this.convertValues(source["warnings"], planner.Warning);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChatMessage {
	    role: string;
	    content: string;
	    // Go type: time
	    time: any;
	    kind?: string;
	    patch?: WorkflowPatch;
	    valid?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ChatMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.role = source["role"];
	        this.content = source["content"];
	        this.time = this.convertValues(source["time"], null);
	        this.kind = source["kind"];
	        this.patch = this.convertValues(source["patch"], WorkflowPatch);
	        this.valid = source["valid"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Conversation {
	    format: string;
	    workflow_id: string;
	    messages: ChatMessage[];
	    summary?: string;
	    summary_covers?: number;
	
	    static createFrom(source: any = {}) {
	        return new Conversation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.format = source["format"];
	        this.workflow_id = source["workflow_id"];
	        this.messages = this.convertValues(source["messages"], ChatMessage);
	        this.summary = source["summary"];
	        this.summary_covers = source["summary_covers"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Diff {
	    added_node_ids: string[];
	    removed_node_ids: string[];
	    modified_node_ids: string[];
	    added_edges: workflow.Edge[];
	    removed_edges: workflow.Edge[];
	
	    static createFrom(source: any = {}) {
	        return new Diff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added_node_ids = source["added_node_ids"];
	        this.removed_node_ids = source["removed_node_ids"];
	        this.modified_node_ids = source["modified_node_ids"];
	        this.added_edges = this.convertValues(source["added_edges"], workflow.Edge);
	        this.removed_edges = this.convertValues(source["removed_edges"], workflow.Edge);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class Try {
	    attempt: number;
	    why: string[];
	    fixed?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Try(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.attempt = source["attempt"];
	        this.why = source["why"];
	        this.fixed = source["fixed"];
	    }
	}
	export class Result {
	    kind: string;
	    message: string;
	    patch?: WorkflowPatch;
	    workflow?: workflow.Workflow;
	    diff?: Diff;
	    changes?: ChangeSet;
	    warnings: planner.Warning[];
	    problems: validate.Problem[];
	    valid: boolean;
	    validated: boolean;
	    tries?: Try[];
	    attempts: number;
	    llm_calls: number;
	    usage: llm.Usage;
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.message = source["message"];
	        this.patch = this.convertValues(source["patch"], WorkflowPatch);
	        this.workflow = this.convertValues(source["workflow"], workflow.Workflow);
	        this.diff = this.convertValues(source["diff"], Diff);
	        this.changes = this.convertValues(source["changes"], ChangeSet);
	        this.warnings = this.convertValues(source["warnings"], planner.Warning);
	        this.problems = this.convertValues(source["problems"], validate.Problem);
	        this.valid = source["valid"];
	        this.validated = source["validated"];
	        this.tries = this.convertValues(source["tries"], Try);
	        this.attempts = source["attempts"];
	        this.llm_calls = source["llm_calls"];
	        this.usage = this.convertValues(source["usage"], llm.Usage);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace credentials {
	
	export class Secret {
	    name: string;
	    hosts?: string[];
	    tools?: string[];
	    stored?: string;
	
	    static createFrom(source: any = {}) {
	        return new Secret(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.hosts = source["hosts"];
	        this.tools = source["tools"];
	        this.stored = source["stored"];
	    }
	}

}

export namespace failure {
	
	export class Pattern {
	    // Go type: time
	    time: any;
	    tool: string;
	    category: string;
	    failure_type: string;
	    signature: string;
	    error: string;
	    resolution: string;
	    fix?: string;
	    attempts: number;
	    count?: number;
	
	    static createFrom(source: any = {}) {
	        return new Pattern(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.time = this.convertValues(source["time"], null);
	        this.tool = source["tool"];
	        this.category = source["category"];
	        this.failure_type = source["failure_type"];
	        this.signature = source["signature"];
	        this.error = source["error"];
	        this.resolution = source["resolution"];
	        this.fix = source["fix"];
	        this.attempts = source["attempts"];
	        this.count = source["count"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Record {
	    attempt: number;
	    // Go type: time
	    time: any;
	    failure_type: string;
	    error: string;
	    output_summary?: string;
	    severity: string;
	    category: string;
	    retryable: boolean;
	    suggested_fix?: string;
	    duration_ms: number;
	    retry_after_ms?: number;
	
	    static createFrom(source: any = {}) {
	        return new Record(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.attempt = source["attempt"];
	        this.time = this.convertValues(source["time"], null);
	        this.failure_type = source["failure_type"];
	        this.error = source["error"];
	        this.output_summary = source["output_summary"];
	        this.severity = source["severity"];
	        this.category = source["category"];
	        this.retryable = source["retryable"];
	        this.suggested_fix = source["suggested_fix"];
	        this.duration_ms = source["duration_ms"];
	        this.retry_after_ms = source["retry_after_ms"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace llm {
	
	export class ConnectionInfo {
	    endpoint: string;
	    model: string;
	    models?: string[];
	    model_listed: boolean;
	    chat_checked: boolean;
	    latency_ns: number;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new ConnectionInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.endpoint = source["endpoint"];
	        this.model = source["model"];
	        this.models = source["models"];
	        this.model_listed = source["model_listed"];
	        this.chat_checked = source["chat_checked"];
	        this.latency_ns = source["latency_ns"];
	        this.message = source["message"];
	    }
	}
	export class KeyUse {
	    stored: boolean;
	    saved: boolean;
	    host: string;
	    endpoint: string;
	
	    static createFrom(source: any = {}) {
	        return new KeyUse(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.stored = source["stored"];
	        this.saved = source["saved"];
	        this.host = source["host"];
	        this.endpoint = source["endpoint"];
	    }
	}
	export class LocalServer {
	    name: string;
	    base_url: string;
	    models: string[];
	
	    static createFrom(source: any = {}) {
	        return new LocalServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.base_url = source["base_url"];
	        this.models = source["models"];
	    }
	}
	export class Usage {
	    prompt_tokens: number;
	    completion_tokens: number;
	    total_tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new Usage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.prompt_tokens = source["prompt_tokens"];
	        this.completion_tokens = source["completion_tokens"];
	        this.total_tokens = source["total_tokens"];
	    }
	}

}

export namespace main {
	
	export class AppliedPatch {
	    workflow?: workflow.Workflow;
	    warnings: planner.Warning[];
	
	    static createFrom(source: any = {}) {
	        return new AppliedPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workflow = this.convertValues(source["workflow"], workflow.Workflow);
	        this.warnings = this.convertValues(source["warnings"], planner.Warning);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AssistantRequest {
	    workflow: workflow.Workflow;
	    path: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new AssistantRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workflow = this.convertValues(source["workflow"], workflow.Workflow);
	        this.path = source["path"];
	        this.message = source["message"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AutosaveView {
	    found: boolean;
	    saved_at: string;
	    path: string;
	    name: string;
	    workflow?: workflow.Workflow;
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new AutosaveView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.found = source["found"];
	        this.saved_at = source["saved_at"];
	        this.path = source["path"];
	        this.name = source["name"];
	        this.workflow = this.convertValues(source["workflow"], workflow.Workflow);
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChatHistory {
	    messages: assistant.ChatMessage[];
	    path: string;
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new ChatHistory(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.messages = this.convertValues(source["messages"], assistant.ChatMessage);
	        this.path = source["path"];
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CronPreview {
	    error?: string;
	    next: string[];
	
	    static createFrom(source: any = {}) {
	        return new CronPreview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.error = source["error"];
	        this.next = source["next"];
	    }
	}
	export class NewSchedule {
	    path: string;
	    cron: string;
	    engine: string;
	    pinned: boolean;
	    approved: string[];
	
	    static createFrom(source: any = {}) {
	        return new NewSchedule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.cron = source["cron"];
	        this.engine = source["engine"];
	        this.pinned = source["pinned"];
	        this.approved = source["approved"];
	    }
	}
	export class OpenResult {
	    path: string;
	    name: string;
	    workflow?: workflow.Workflow;
	    warnings: string[];
	    file: service.FileTrust;
	
	    static createFrom(source: any = {}) {
	        return new OpenResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.name = source["name"];
	        this.workflow = this.convertValues(source["workflow"], workflow.Workflow);
	        this.warnings = source["warnings"];
	        this.file = this.convertValues(source["file"], service.FileTrust);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PatchPreview {
	    workflow?: workflow.Workflow;
	    diff: assistant.Diff;
	    changes: assistant.ChangeSet;
	    warnings: planner.Warning[];
	    valid: boolean;
	    problems: validate.Problem[];
	
	    static createFrom(source: any = {}) {
	        return new PatchPreview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workflow = this.convertValues(source["workflow"], workflow.Workflow);
	        this.diff = this.convertValues(source["diff"], assistant.Diff);
	        this.changes = this.convertValues(source["changes"], assistant.ChangeSet);
	        this.warnings = this.convertValues(source["warnings"], planner.Warning);
	        this.valid = source["valid"];
	        this.problems = this.convertValues(source["problems"], validate.Problem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PinSource {
	    outputs: Record<string, any>;
	    run_id: string;
	
	    static createFrom(source: any = {}) {
	        return new PinSource(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.outputs = source["outputs"];
	        this.run_id = source["run_id"];
	    }
	}
	export class RecentFile {
	    path: string;
	    name: string;
	    opened_at: string;
	
	    static createFrom(source: any = {}) {
	        return new RecentFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.name = source["name"];
	        this.opened_at = source["opened_at"];
	    }
	}
	export class RunEscalation {
	    id: string;
	    escalation: runner.Escalation;
	    after_seq: number;
	
	    static createFrom(source: any = {}) {
	        return new RunEscalation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.escalation = this.convertValues(source["escalation"], runner.Escalation);
	        this.after_seq = source["after_seq"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunRecord {
	    run_id: string;
	    dir: string;
	    workflow_id: string;
	    workflow_name: string;
	    outcome: string;
	    error?: string;
	    stopped_at?: runner.NodeRef;
	    summary?: runner.Summary;
	    verdict?: runner.Verdict;
	    warnings: string[];
	    replanned: boolean;
	    // Go type: time
	    started: any;
	    // Go type: time
	    finished: any;
	    complete: boolean;
	    engine_run_id?: string;
	    source?: string;
	
	    static createFrom(source: any = {}) {
	        return new RunRecord(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.dir = source["dir"];
	        this.workflow_id = source["workflow_id"];
	        this.workflow_name = source["workflow_name"];
	        this.outcome = source["outcome"];
	        this.error = source["error"];
	        this.stopped_at = this.convertValues(source["stopped_at"], runner.NodeRef);
	        this.summary = this.convertValues(source["summary"], runner.Summary);
	        this.verdict = this.convertValues(source["verdict"], runner.Verdict);
	        this.warnings = source["warnings"];
	        this.replanned = source["replanned"];
	        this.started = this.convertValues(source["started"], null);
	        this.finished = this.convertValues(source["finished"], null);
	        this.complete = source["complete"];
	        this.engine_run_id = source["engine_run_id"];
	        this.source = source["source"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunHistoryResult {
	    dir: string;
	    runs: RunRecord[];
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new RunHistoryResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.dir = source["dir"];
	        this.runs = this.convertValues(source["runs"], RunRecord);
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunLog {
	    events: runner.Event[];
	    total: number;
	    truncated: boolean;
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new RunLog(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.events = this.convertValues(source["events"], runner.Event);
	        this.total = source["total"];
	        this.truncated = source["truncated"];
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class RunStart {
	    started: boolean;
	    error?: string;
	    problems: validate.Problem[];
	    approval: approval.Step[];
	    warnings: string[];
	    missing_secrets?: service.NeededSecret[];
	
	    static createFrom(source: any = {}) {
	        return new RunStart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.started = source["started"];
	        this.error = source["error"];
	        this.problems = this.convertValues(source["problems"], validate.Problem);
	        this.approval = this.convertValues(source["approval"], approval.Step);
	        this.warnings = source["warnings"];
	        this.missing_secrets = this.convertValues(source["missing_secrets"], service.NeededSecret);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunStatus {
	    running: boolean;
	    run_id: string;
	    workflow_id: string;
	    escalation?: RunEscalation;
	    can_replan: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RunStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.running = source["running"];
	        this.run_id = source["run_id"];
	        this.workflow_id = source["workflow_id"];
	        this.escalation = this.convertValues(source["escalation"], RunEscalation);
	        this.can_replan = source["can_replan"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SchedulesView {
	    schedules: service.ScheduleState[];
	    scheduler: string;
	    no_scheduler?: string;
	    temporal: string;
	
	    static createFrom(source: any = {}) {
	        return new SchedulesView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.schedules = this.convertValues(source["schedules"], service.ScheduleState);
	        this.scheduler = source["scheduler"];
	        this.no_scheduler = source["no_scheduler"];
	        this.temporal = source["temporal"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SecretsView {
	    secrets: credentials.Secret[];
	    warning?: string;
	
	    static createFrom(source: any = {}) {
	        return new SecretsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.secrets = this.convertValues(source["secrets"], credentials.Secret);
	        this.warning = source["warning"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsView {
	    settings: settings.Settings;
	    api_key_set: boolean;
	    api_key_masked: string;
	    path: string;
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new SettingsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.settings = this.convertValues(source["settings"], settings.Settings);
	        this.api_key_set = source["api_key_set"];
	        this.api_key_masked = source["api_key_masked"];
	        this.path = source["path"];
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TemporalCredentials {
	    api_key_set: boolean;
	    payload_key_set: boolean;
	    api_key_env: boolean;
	    payload_key_env: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TemporalCredentials(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.api_key_set = source["api_key_set"];
	        this.payload_key_set = source["payload_key_set"];
	        this.api_key_env = source["api_key_env"];
	        this.payload_key_env = source["payload_key_env"];
	    }
	}
	export class ToolCatalogResult {
	    tools: tools.Tool[];
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new ToolCatalogResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.tools = this.convertValues(source["tools"], tools.Tool);
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace planner {
	
	export class Warning {
	    stage: string;
	    message: string;
	    node_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new Warning(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.stage = source["stage"];
	        this.message = source["message"];
	        this.node_id = source["node_id"];
	    }
	}

}

export namespace runner {
	
	export class Escalation {
	    run_id: string;
	    node_id: string;
	    node_key: string;
	    node_name: string;
	    node_type: string;
	    tool?: string;
	    reason: string;
	    attempts: number;
	    max_attempts: number;
	    failures: failure.Record[];
	    last_error: string;
	    severity: string;
	    category: string;
	    retryable: boolean;
	    suggested_fix?: string;
	    known_fixes?: failure.Pattern[];
	    notice?: string;
	    can_replan: boolean;
	    choices: string[];
	
	    static createFrom(source: any = {}) {
	        return new Escalation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.node_id = source["node_id"];
	        this.node_key = source["node_key"];
	        this.node_name = source["node_name"];
	        this.node_type = source["node_type"];
	        this.tool = source["tool"];
	        this.reason = source["reason"];
	        this.attempts = source["attempts"];
	        this.max_attempts = source["max_attempts"];
	        this.failures = this.convertValues(source["failures"], failure.Record);
	        this.last_error = source["last_error"];
	        this.severity = source["severity"];
	        this.category = source["category"];
	        this.retryable = source["retryable"];
	        this.suggested_fix = source["suggested_fix"];
	        this.known_fixes = this.convertValues(source["known_fixes"], failure.Pattern);
	        this.notice = source["notice"];
	        this.can_replan = source["can_replan"];
	        this.choices = source["choices"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Verdict {
	    node_key?: string;
	    approved: boolean;
	    confidence: number;
	    feedback?: string;
	    suggestions?: string[];
	    checked_by: string;
	    condition?: string;
	    criteria?: string;
	    accepted?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Verdict(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.node_key = source["node_key"];
	        this.approved = source["approved"];
	        this.confidence = source["confidence"];
	        this.feedback = source["feedback"];
	        this.suggestions = source["suggestions"];
	        this.checked_by = source["checked_by"];
	        this.condition = source["condition"];
	        this.criteria = source["criteria"];
	        this.accepted = source["accepted"];
	    }
	}
	export class NodeRef {
	    id: string;
	    key: string;
	    name?: string;
	
	    static createFrom(source: any = {}) {
	        return new NodeRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.key = source["key"];
	        this.name = source["name"];
	    }
	}
	export class NodeStat {
	    id: string;
	    key: string;
	    name?: string;
	    executions: number;
	    attempts: number;
	    failures: number;
	    result: string;
	
	    static createFrom(source: any = {}) {
	        return new NodeStat(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.key = source["key"];
	        this.name = source["name"];
	        this.executions = source["executions"];
	        this.attempts = source["attempts"];
	        this.failures = source["failures"];
	        this.result = source["result"];
	    }
	}
	export class Summary {
	    nodes: number;
	    first_attempt_successes: number;
	    retried: number;
	    retry_successes: number;
	    escalations: number;
	    skipped: number;
	    handled: number;
	    disabled: number;
	    failed: number;
	    failure_types: Record<string, number>;
	    categories: Record<string, number>;
	    details: NodeStat[];
	    duration_ms: number;
	    pinned?: number;
	    reused?: number;
	    from?: NodeRef;
	    reused_from?: string;
	
	    static createFrom(source: any = {}) {
	        return new Summary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.nodes = source["nodes"];
	        this.first_attempt_successes = source["first_attempt_successes"];
	        this.retried = source["retried"];
	        this.retry_successes = source["retry_successes"];
	        this.escalations = source["escalations"];
	        this.skipped = source["skipped"];
	        this.handled = source["handled"];
	        this.disabled = source["disabled"];
	        this.failed = source["failed"];
	        this.failure_types = source["failure_types"];
	        this.categories = source["categories"];
	        this.details = this.convertValues(source["details"], NodeStat);
	        this.duration_ms = source["duration_ms"];
	        this.pinned = source["pinned"];
	        this.reused = source["reused"];
	        this.from = this.convertValues(source["from"], NodeRef);
	        this.reused_from = source["reused_from"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Response {
	    action: string;
	    instruction?: string;
	    arguments?: Record<string, any>;
	
	    static createFrom(source: any = {}) {
	        return new Response(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.action = source["action"];
	        this.instruction = source["instruction"];
	        this.arguments = source["arguments"];
	    }
	}
	export class Event {
	    seq: number;
	    // Go type: time
	    time: any;
	    type: string;
	    run_id?: string;
	    node_id?: string;
	    node_key?: string;
	    node_name?: string;
	    status?: string;
	    attempt?: number;
	    max_attempts?: number;
	    iteration?: number;
	    branch?: string;
	    condition?: string;
	    message?: string;
	    tool?: string;
	    delay_ms?: number;
	    duration_ms?: number;
	    outputs?: Record<string, any>;
	    arguments?: Record<string, any>;
	    failure?: failure.Record;
	    escalation?: Escalation;
	    response?: Response;
	    outcome?: string;
	    summary?: Summary;
	    verdict?: Verdict;
	    source?: string;
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.time = this.convertValues(source["time"], null);
	        this.type = source["type"];
	        this.run_id = source["run_id"];
	        this.node_id = source["node_id"];
	        this.node_key = source["node_key"];
	        this.node_name = source["node_name"];
	        this.status = source["status"];
	        this.attempt = source["attempt"];
	        this.max_attempts = source["max_attempts"];
	        this.iteration = source["iteration"];
	        this.branch = source["branch"];
	        this.condition = source["condition"];
	        this.message = source["message"];
	        this.tool = source["tool"];
	        this.delay_ms = source["delay_ms"];
	        this.duration_ms = source["duration_ms"];
	        this.outputs = source["outputs"];
	        this.arguments = source["arguments"];
	        this.failure = this.convertValues(source["failure"], failure.Record);
	        this.escalation = this.convertValues(source["escalation"], Escalation);
	        this.response = this.convertValues(source["response"], Response);
	        this.outcome = source["outcome"];
	        this.summary = this.convertValues(source["summary"], Summary);
	        this.verdict = this.convertValues(source["verdict"], Verdict);
	        this.source = source["source"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	

}

export namespace schedule {
	
	export class Remote {
	    address: string;
	    namespace: string;
	    task_queue: string;
	    tls?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Remote(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.address = source["address"];
	        this.namespace = source["namespace"];
	        this.task_queue = source["task_queue"];
	        this.tls = source["tls"];
	    }
	}
	export class Schedule {
	    id: string;
	    file: string;
	    cron: string;
	    paused: boolean;
	    backend: string;
	    // Go type: time
	    created: any;
	    args?: string[];
	    sha256?: string;
	    temporal?: Remote;
	
	    static createFrom(source: any = {}) {
	        return new Schedule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.file = source["file"];
	        this.cron = source["cron"];
	        this.paused = source["paused"];
	        this.backend = source["backend"];
	        this.created = this.convertValues(source["created"], null);
	        this.args = source["args"];
	        this.sha256 = source["sha256"];
	        this.temporal = this.convertValues(source["temporal"], Remote);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace service {
	
	export class FileTrust {
	    path: string;
	    trusted: boolean;
	    why: string;
	    folder?: string;
	    changed: boolean;
	    sha256?: string;
	
	    static createFrom(source: any = {}) {
	        return new FileTrust(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.trusted = source["trusted"];
	        this.why = source["why"];
	        this.folder = source["folder"];
	        this.changed = source["changed"];
	        this.sha256 = source["sha256"];
	    }
	}
	export class GoingRun {
	    run_id: string;
	    // Go type: time
	    started: any;
	
	    static createFrom(source: any = {}) {
	        return new GoingRun(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.started = this.convertValues(source["started"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NeededSecret {
	    name: string;
	    hosts: string[];
	    tools: string[];
	    nodes: string[];
	    missing: boolean;
	
	    static createFrom(source: any = {}) {
	        return new NeededSecret(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.hosts = source["hosts"];
	        this.tools = source["tools"];
	        this.nodes = source["nodes"];
	        this.missing = source["missing"];
	    }
	}
	export class Record {
	    run_id: string;
	    dir: string;
	    workflow_id: string;
	    workflow_name: string;
	    outcome: string;
	    error?: string;
	    stopped_at?: runner.NodeRef;
	    summary?: runner.Summary;
	    verdict?: runner.Verdict;
	    warnings: string[];
	    replanned: boolean;
	    // Go type: time
	    started: any;
	    // Go type: time
	    finished: any;
	    complete: boolean;
	    engine_run_id?: string;
	    source?: string;
	
	    static createFrom(source: any = {}) {
	        return new Record(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.dir = source["dir"];
	        this.workflow_id = source["workflow_id"];
	        this.workflow_name = source["workflow_name"];
	        this.outcome = source["outcome"];
	        this.error = source["error"];
	        this.stopped_at = this.convertValues(source["stopped_at"], runner.NodeRef);
	        this.summary = this.convertValues(source["summary"], runner.Summary);
	        this.verdict = this.convertValues(source["verdict"], runner.Verdict);
	        this.warnings = source["warnings"];
	        this.replanned = source["replanned"];
	        this.started = this.convertValues(source["started"], null);
	        this.finished = this.convertValues(source["finished"], null);
	        this.complete = source["complete"];
	        this.engine_run_id = source["engine_run_id"];
	        this.source = source["source"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ScheduleResult {
	    started: boolean;
	    error?: string;
	    problems: validate.Problem[];
	    approval: approval.Step[];
	    warnings: string[];
	    // Go type: Record
	    refused?: any;
	    missing_secrets?: NeededSecret[];
	    schedule?: schedule.Schedule;
	
	    static createFrom(source: any = {}) {
	        return new ScheduleResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.started = source["started"];
	        this.error = source["error"];
	        this.problems = this.convertValues(source["problems"], validate.Problem);
	        this.approval = this.convertValues(source["approval"], approval.Step);
	        this.warnings = source["warnings"];
	        this.refused = this.convertValues(source["refused"], null);
	        this.missing_secrets = this.convertValues(source["missing_secrets"], NeededSecret);
	        this.schedule = this.convertValues(source["schedule"], schedule.Schedule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ScheduleState {
	    id: string;
	    file: string;
	    cron: string;
	    paused: boolean;
	    backend: string;
	    // Go type: time
	    created: any;
	    args?: string[];
	    sha256?: string;
	    temporal?: schedule.Remote;
	    state: string;
	    // Go type: time
	    last_run?: any;
	    last_outcome?: string;
	    // Go type: time
	    missed?: any;
	    // Go type: time
	    next?: any;
	    changed: boolean;
	    attention: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ScheduleState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.file = source["file"];
	        this.cron = source["cron"];
	        this.paused = source["paused"];
	        this.backend = source["backend"];
	        this.created = this.convertValues(source["created"], null);
	        this.args = source["args"];
	        this.sha256 = source["sha256"];
	        this.temporal = this.convertValues(source["temporal"], schedule.Remote);
	        this.state = source["state"];
	        this.last_run = this.convertValues(source["last_run"], null);
	        this.last_outcome = source["last_outcome"];
	        this.missed = this.convertValues(source["missed"], null);
	        this.next = this.convertValues(source["next"], null);
	        this.changed = source["changed"];
	        this.attention = source["attention"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ScheduleUpdateResult {
	    started: boolean;
	    error?: string;
	    problems: validate.Problem[];
	    approval: approval.Step[];
	    warnings: string[];
	    // Go type: Record
	    refused?: any;
	    missing_secrets?: NeededSecret[];
	    updated: schedule.Schedule[];
	
	    static createFrom(source: any = {}) {
	        return new ScheduleUpdateResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.started = source["started"];
	        this.error = source["error"];
	        this.problems = this.convertValues(source["problems"], validate.Problem);
	        this.approval = this.convertValues(source["approval"], approval.Step);
	        this.warnings = source["warnings"];
	        this.refused = this.convertValues(source["refused"], null);
	        this.missing_secrets = this.convertValues(source["missing_secrets"], NeededSecret);
	        this.updated = this.convertValues(source["updated"], schedule.Schedule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace settings {
	
	export class AutoReplan {
	    enabled: boolean;
	    max_per_run: number;
	    min_severity: string;
	
	    static createFrom(source: any = {}) {
	        return new AutoReplan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.max_per_run = source["max_per_run"];
	        this.min_severity = source["min_severity"];
	    }
	}
	export class TemporalEngine {
	    address: string;
	    namespace: string;
	    task_queue: string;
	    tls: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TemporalEngine(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.address = source["address"];
	        this.namespace = source["namespace"];
	        this.task_queue = source["task_queue"];
	        this.tls = source["tls"];
	    }
	}
	export class Engine {
	    kind: string;
	    temporal: TemporalEngine;
	
	    static createFrom(source: any = {}) {
	        return new Engine(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.temporal = this.convertValues(source["temporal"], TemporalEngine);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Features {
	    allow_ai_transforms: boolean;
	    allow_agent_steps: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Features(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.allow_ai_transforms = source["allow_ai_transforms"];
	        this.allow_agent_steps = source["allow_agent_steps"];
	    }
	}
	export class LLM {
	    base_url: string;
	    model: string;
	    api_key?: string;
	    api_key_store?: string;
	    timeout_s: number;
	    total_timeout_s: number;
	    structured_output: string;
	
	    static createFrom(source: any = {}) {
	        return new LLM(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.base_url = source["base_url"];
	        this.model = source["model"];
	        this.api_key = source["api_key"];
	        this.api_key_store = source["api_key_store"];
	        this.timeout_s = source["timeout_s"];
	        this.total_timeout_s = source["total_timeout_s"];
	        this.structured_output = source["structured_output"];
	    }
	}
	export class MCPServer {
	    command: string;
	    args?: string[];
	    env?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new MCPServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	    }
	}
	export class Run {
	    default_retries: number;
	    retention_runs: number;
	    auto_replan: AutoReplan;
	
	    static createFrom(source: any = {}) {
	        return new Run(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.default_retries = source["default_retries"];
	        this.retention_runs = source["retention_runs"];
	        this.auto_replan = this.convertValues(source["auto_replan"], AutoReplan);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Settings {
	    max_repair_attempts: number;
	    llm: LLM;
	    features: Features;
	    mcp_servers: Record<string, MCPServer>;
	    run: Run;
	    engine: Engine;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.max_repair_attempts = source["max_repair_attempts"];
	        this.llm = this.convertValues(source["llm"], LLM);
	        this.features = this.convertValues(source["features"], Features);
	        this.mcp_servers = this.convertValues(source["mcp_servers"], MCPServer, true);
	        this.run = this.convertValues(source["run"], Run);
	        this.engine = this.convertValues(source["engine"], Engine);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace tools {
	
	export class Field {
	    name: string;
	    type: string;
	    description: string;
	
	    static createFrom(source: any = {}) {
	        return new Field(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.type = source["type"];
	        this.description = source["description"];
	    }
	}
	export class Tool {
	    name: string;
	    description: string;
	    input_schema: number[];
	    outputs: Field[];
	    server?: string;
	    side_effects: boolean;
	    open_world?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Tool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.input_schema = source["input_schema"];
	        this.outputs = this.convertValues(source["outputs"], Field);
	        this.server = source["server"];
	        this.side_effects = source["side_effects"];
	        this.open_world = source["open_world"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace validate {
	
	export class Problem {
	    code: string;
	    severity: string;
	    message: string;
	    node_ids: string[];
	    edges: workflow.Edge[];
	    path?: string;
	    key?: string;
	    secret?: string;
	
	    static createFrom(source: any = {}) {
	        return new Problem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.severity = source["severity"];
	        this.message = source["message"];
	        this.node_ids = source["node_ids"];
	        this.edges = this.convertValues(source["edges"], workflow.Edge);
	        this.path = source["path"];
	        this.key = source["key"];
	        this.secret = source["secret"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Result {
	    valid: boolean;
	    problems: Problem[];
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.valid = source["valid"];
	        this.problems = this.convertValues(source["problems"], Problem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace workflow {
	
	export class Backoff {
	    initial_ms?: number;
	    multiplier?: number;
	    max_ms?: number;
	    jitter?: number;
	
	    static createFrom(source: any = {}) {
	        return new Backoff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.initial_ms = source["initial_ms"];
	        this.multiplier = source["multiplier"];
	        this.max_ms = source["max_ms"];
	        this.jitter = source["jitter"];
	    }
	}
	export class DoneWhen {
	    condition?: string;
	    criteria?: string;
	
	    static createFrom(source: any = {}) {
	        return new DoneWhen(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.condition = source["condition"];
	        this.criteria = source["criteria"];
	    }
	}
	export class EdgeOutput {
	    type: string;
	    name?: string;
	
	    static createFrom(source: any = {}) {
	        return new EdgeOutput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.name = source["name"];
	    }
	}
	export class Edge {
	    from: string;
	    to: string;
	    output?: EdgeOutput;
	
	    static createFrom(source: any = {}) {
	        return new Edge(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.from = source["from"];
	        this.to = source["to"];
	        this.output = this.convertValues(source["output"], EdgeOutput);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Retry {
	    max_attempts?: number;
	    backoff?: Backoff;
	
	    static createFrom(source: any = {}) {
	        return new Retry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.max_attempts = source["max_attempts"];
	        this.backoff = this.convertValues(source["backoff"], Backoff);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Position {
	    x: number;
	    y: number;
	
	    static createFrom(source: any = {}) {
	        return new Position(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.x = source["x"];
	        this.y = source["y"];
	    }
	}
	export class SwitchCase {
	    name: string;
	    condition: string;
	
	    static createFrom(source: any = {}) {
	        return new SwitchCase(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.condition = source["condition"];
	    }
	}
	export class Params {
	    tool?: string;
	    arguments?: Record<string, any>;
	    prompt?: string;
	    allowed_tools?: string[];
	    max_tool_calls?: number;
	    kind?: string;
	    input?: string;
	    labels?: string[];
	    condition?: string;
	    cases?: SwitchCase[];
	    exit_condition?: string;
	    max_iterations?: number;
	    loop_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new Params(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.tool = source["tool"];
	        this.arguments = source["arguments"];
	        this.prompt = source["prompt"];
	        this.allowed_tools = source["allowed_tools"];
	        this.max_tool_calls = source["max_tool_calls"];
	        this.kind = source["kind"];
	        this.input = source["input"];
	        this.labels = source["labels"];
	        this.condition = source["condition"];
	        this.cases = this.convertValues(source["cases"], SwitchCase);
	        this.exit_condition = source["exit_condition"];
	        this.max_iterations = source["max_iterations"];
	        this.loop_id = source["loop_id"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Node {
	    id: string;
	    key: string;
	    name: string;
	    type: string;
	    params: Params;
	    position?: Position;
	    enabled?: boolean;
	    timeout_ms?: number;
	    retry?: Retry;
	    verify?: string;
	    on_error?: string;
	    done_when?: DoneWhen;
	
	    static createFrom(source: any = {}) {
	        return new Node(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.key = source["key"];
	        this.name = source["name"];
	        this.type = source["type"];
	        this.params = this.convertValues(source["params"], Params);
	        this.position = this.convertValues(source["position"], Position);
	        this.enabled = source["enabled"];
	        this.timeout_ms = source["timeout_ms"];
	        this.retry = this.convertValues(source["retry"], Retry);
	        this.verify = source["verify"];
	        this.on_error = source["on_error"];
	        this.done_when = this.convertValues(source["done_when"], DoneWhen);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	
	export class Workflow {
	    format: string;
	    id: string;
	    name: string;
	    goal?: string;
	    done_when?: DoneWhen;
	    nodes: Node[];
	    edges: Edge[];
	    pinned?: Record<string, any>;
	
	    static createFrom(source: any = {}) {
	        return new Workflow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.format = source["format"];
	        this.id = source["id"];
	        this.name = source["name"];
	        this.goal = source["goal"];
	        this.done_when = this.convertValues(source["done_when"], DoneWhen);
	        this.nodes = this.convertValues(source["nodes"], Node);
	        this.edges = this.convertValues(source["edges"], Edge);
	        this.pinned = source["pinned"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

