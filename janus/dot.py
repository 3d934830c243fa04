"""Graphviz text for a recorded graph: the main graph, each library function as a
cluster, calls into functions as dotted edges (`janus cache export --format dot`)."""
from __future__ import annotations


def graph_def_from_text(text: str):
    from tensorflow.core.framework import graph_pb2
    from google.protobuf import text_format
    graph_def = graph_pb2.GraphDef()
    text_format.Parse(text, graph_def)
    return graph_def


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph_def, title: str) -> str:
    """Graphviz: the main graph, each library function as a cluster, calls as dotted edges."""
    lines = [f"digraph {_dot_id(title)} {{", "  compound=true; rankdir=TB;",
             "  node [shape=box, style=rounded, fontsize=10, fontname=Helvetica];",
             f"  label={_dot_id(title)}; labelloc=t;"]
    functions = {f.signature.name: f for f in graph_def.library.function}
    anchors = {}

    def emit(prefix: str, nodes, args, indent: str):
        names = {n.name for n in nodes} | set(args)
        for arg in args:
            lines.append(f"{indent}{_dot_id(prefix + arg)} [label={_dot_id(arg)}, shape=ellipse];")
        for node in nodes:
            label = _dot_id(node.name)[:-1] + "\\n" + _dot_id(node.op)[1:]
            lines.append(f"{indent}{_dot_id(prefix + node.name)} [label={label}];")
        for node in nodes:
            for inp in node.input:
                control = inp.startswith("^")
                source = inp.lstrip("^").split(":")[0]
                if source in names:
                    style = " [style=dashed]" if control else ""
                    lines.append(f"{indent}{_dot_id(prefix + source)} -> "
                                 f"{_dot_id(prefix + node.name)}{style};")
        return [n.name for n in nodes] + list(args)

    main = emit("", graph_def.node, [], "  ")
    if main:
        anchors["<main>"] = main[0]
    for name, fn in functions.items():
        lines.append(f"  subgraph {_dot_id('cluster_' + name)} {{")
        lines.append(f"    label={_dot_id(name)}; style=dashed;")
        args = [a.name for a in fn.signature.input_arg]
        members = emit(name + "/", fn.node_def, args, "    ")
        lines.append("  }")
        if members:
            anchors[name] = name + "/" + members[0]

    def calls(prefix: str, nodes):
        for node in nodes:
            targets = [node.op] if node.op in functions else []
            for attr_name, attr in node.attr.items():
                if attr.HasField("func") and attr.func.name in functions:
                    targets.append(attr.func.name)
                elif attr.HasField("list"):
                    targets += [f.name for f in attr.list.func if f.name in functions]
            for target in targets:
                if target in anchors:
                    lines.append(f"  {_dot_id(prefix + node.name)} -> {_dot_id(anchors[target])} "
                                 f"[style=dotted, lhead={_dot_id('cluster_' + target)}];")

    calls("", graph_def.node)
    for name, fn in functions.items():
        calls(name + "/", fn.node_def)
    lines.append("}")
    return "\n".join(lines) + "\n"
