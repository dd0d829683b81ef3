"""Facts the docs state, kept true by tests (issue 26, group 6)."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(*path):
    with open(os.path.join(ROOT, *path)) as f:
        return f.read()


def _expand(name):
    # `tensor.{hpp,cpp}` names two files
    m = re.match(r'^(.*)\.\{(.*)\}$', name)
    if not m:
        return [name]
    return ['{}.{}'.format(m.group(1), ext) for ext in m.group(2).split(',')]


def test_architecture_names_every_native_source_file():
    text = _read('docs', 'architecture.md')
    table = text[text.index('| File | Concern |'):]
    table = table[:table.index('\n\n')]
    named = set()
    for cell in re.findall(r'^\s*\| (.*?) \|', table, re.M):
        for name in re.findall(r'`([^`]+)`', cell):
            named.update(_expand(name))
    files = {f for f in os.listdir(os.path.join(ROOT, 'csrc'))
             if f.endswith(('.cpp', '.hpp'))}
    assert files - named == set(), 'docs/architecture.md misses csrc files'
    assert {n for n in named if '/' not in n} - files == set(), \
        'docs/architecture.md names csrc files that do not exist'


def test_the_route_recipe_names_the_bf16_step():
    # The "how to add a route" recipe of the intel64 package states every
    # step a new route takes, mixed_bf16's declaration included.
    from cpuframe.backends import intel64
    doc = intel64.__doc__
    assert 'forward_intel64' in doc and 'intel64_supports' in doc
    assert 'bf16_inputs' in doc and 'mixed_bf16' in doc
