use File::Path qw(rmtree);
rmtree('/opt/x');
