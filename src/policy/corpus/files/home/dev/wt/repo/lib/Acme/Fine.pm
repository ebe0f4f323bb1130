package Acme::Fine;
print "fine\n";
1;
