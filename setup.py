"""nbdev's standard setup script: every package setting is read from settings.ini."""
from configparser import ConfigParser
import setuptools

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

expected = ('version description keywords author author_email license min_python '
            'lib_name user status audience language').split()
missing = [key for key in expected if key not in cfg]
if missing: raise KeyError(f"settings.ini lacks {missing}")

licenses = {'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License')}
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable',
            '6 - Mature', '7 - Inactive']
py_versions = '3.10 3.11 3.12 3.13'.split()
min_python = cfg['min_python']
license_name, license_classifier = licenses[cfg['license']]

def requirements(key):
    "The space-separated requirement list stored under `key` in settings.ini."
    return cfg.get(key, '').split()

dev_requirements = requirements('dev_requirements')
baselines = requirements('baselines_requirements')
vae = requirements('vae_requirements')
experiments = requirements('experiments_requirements')
dask = requirements('dask_requirements')
structure = requirements('structure_requirements')
compare = requirements('compare_requirements')
scanpy = requirements('scanpy_requirements')

setuptools.setup(
    name=cfg['lib_name'],
    license=license_name,
    classifiers=[
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
        'License :: ' + license_classifier,
    ] + ['Programming Language :: Python :: ' + v for v in py_versions[py_versions.index(min_python):]],
    url=cfg['git_url'],
    packages=setuptools.find_packages(include=['ikd', 'ikd.*']),
    include_package_data=True,
    install_requires=requirements('requirements'),
    extras_require={'dev': dev_requirements, 'baselines': baselines, 'vae': vae, 'experiments': experiments, 'dask': dask,
                    'structure': structure, 'compare': compare, 'scanpy': scanpy,
                    'all': dev_requirements + baselines + vae + experiments + dask + structure + compare + scanpy},
    dependency_links=cfg.get('dep_links', '').split(),
    python_requires='>=' + min_python,
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    zip_safe=False,
    entry_points={
        'console_scripts': cfg.get('console_scripts', '').split(),
        'nbdev': [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"],
    },
    version=cfg['version'],
    description=cfg['description'],
    keywords=cfg['keywords'],
    author=cfg['author'],
    author_email=cfg['author_email'],
)
